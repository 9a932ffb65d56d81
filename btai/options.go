package btai

import (
	"fmt"
	"math"
	"strings"

	"github.com/arbor-ai/arbor/pomdp"
)

// Cost is the evaluation criterion of a newly expanded node (paper section
// 6.3.3).
type Cost int

const (
	// Classic is g_classic = KL[Q(O_I) || V(O)] + E_Q(S_I)[H[P(O_I | S_I)]]:
	// risk plus ambiguity, the expected free energy.
	Classic Cost = iota
	// PCost is g_pcost = KL[Q(S_I) || V(S)] + KL[Q(O_I) || V(O)].
	PCost
	// FEEF is g_feef = KL[Q(O_I, S_I) || V(O) V(S)] with the joint
	// Q(O, S) = A(o|s) Q(s) (the free energy of the expected future).
	FEEF
)

var costNames = []string{"classic", "pcost", "feef"}

func (c Cost) String() string { return enumName(costNames, "Cost", c) }

// ParseCost parses "classic", "pcost" or "feef".
func ParseCost(s string) (Cost, error) {
	return apiResult(parseEnum[Cost](costNames, "cost", s))
}

// Inference is the way the posteriors of newly expanded future nodes are
// computed.
type Inference int

const (
	// VMP iterates the paper's mean-field updates for Q*(S_I) and Q*(O_I)
	// (section 6.2) on the new nodes until the free energy converges.
	VMP Inference = iota
	// Predictive sets Q(S_I) = B_I Q(S_parent) and Q(O_I) = A Q(S_I): exact
	// belief propagation on the unobserved future.
	Predictive
)

var inferenceNames = []string{"vmp", "predictive"}

func (i Inference) String() string { return enumName(inferenceNames, "Inference", i) }

// ParseInference parses "vmp" or "predictive".
func ParseInference(s string) (Inference, error) {
	return apiResult(parseEnum[Inference](inferenceNames, "inference", s))
}

// Options configures an agent. A nil *Options, the zero Options and a zero
// field mean the documented defaults, those of PresetScaleFree (the
// default preset); the fields where zero is a meaningful value
// (Exploration, ActionPrecision, NoveltyScale) are pointers, nil for the
// default. Resolved fills the defaults in; the presets return resolved
// options.
type Options struct {
	Iterations      int             // planning iterations per action (default 1000)
	Exploration     *float64        // UCT exploration constant C_p (default 0.5)
	Selection       Selection       // the rule of the selection step (default NormalizedUCT)
	Cost            Cost            // node cost (default Classic)
	Propagation     Propagation     // cost propagation (default MinBackward)
	Inference       Inference       // inference on new future nodes (default VMP)
	GlobalInference bool            // run VMP on the whole graph after each expansion instead of on the new nodes only
	ActionSelection ActionSelection // how the action is picked from the planned tree (default MostVisited)
	// ActionPrecision is the precision α of Softmax (σ(-α ḡ); default 100)
	// and Visits (N^α; default 1).
	ActionPrecision *float64
	Rollouts        int // N roll-outs per expanded node (Algorithm 1); 0 disables them
	RolloutLength   int // K, the length of each roll-out (default 5)
	// VMPIterations and VMPTolerance control the local inference on new
	// nodes (defaults 32 and 1e-9).
	VMPIterations int
	VMPTolerance  float64
	// Window bounds the number of past time steps kept in the graph; older
	// steps are folded into a prior over the oldest kept state (see
	// Agent.Step). Default 32; WindowAll keeps the whole past.
	Window int
	// Past is how the past is inferred: pomdp.PastVMP (the default, and
	// pomdp.PastDefault: the paper's mean field, section 6.1) or
	// pomdp.PastFilter (exact filtering; not with GlobalInference, which
	// runs VMP over the past).
	Past pomdp.PastInference
	// TrialSteps, when > 0, ties the planning depth to the steps left in a
	// trial of TrialSteps actions: at time t (Agent.Time) no node deeper
	// than TrialSteps - t (at least 1) is expanded, and planning stops
	// early once every leaf is at that depth (Tree.SetDepthLimit,
	// Tree.Exhausted). 0, the default, leaves the depth unbounded
	// (docs/btai.md, "Planning to the end of the trial").
	TrialSteps int
	// LearningRate η and Forgetting ω of the Dirichlet learning at the end
	// of every episode, c' = ω c + η Δc (pomdp.Learning); nil means 1.
	// They apply to the model's own concentrations a, b, d.
	LearningRate, Forgetting *float64

	// Novelty makes the agent learn the likelihood A while it acts and
	// seek what it would learn: Dirichlet concentrations over A, starting
	// at NoveltyPrior × A (or the model's own concentrations a, when it
	// has them), gain Q(s_t) in the row of each observation o_t, the
	// planning tree uses their mean as Ā, and every new node's cost is
	// lowered by NoveltyScale × its novelty, the expected information
	// gain about A (docs/btai.md, "Novelty").
	Novelty bool
	// NoveltyScale is the weight λ of the novelty term (default 10;
	// finite, >= 0).
	NoveltyScale *float64
	// NoveltyPrior is the concentration κ of the prior a = κ A when the
	// model has no concentrations a (default 1; 1e-6 to 1e6).
	NoveltyPrior float64
	// NoveltyCarry keeps the concentrations learned in one episode for
	// the next; by default every episode starts again from the prior.
	// NoveltyPrior and NoveltyCarry apply to the counts novelty keeps for a
	// model without concentrations a; a model's own a is learned by the
	// graph and carried from one episode to the next as it is without
	// novelty (Agent.Reset).
	NoveltyCarry bool
}

// MaxTrialSteps is the largest Options.TrialSteps.
const MaxTrialSteps = 1_000_000

// WindowAll is the Window that keeps the whole past.
const WindowAll = -1

// Defaults of the options (PresetScaleFree).
const (
	DefaultIterations       = 1000
	DefaultExploration      = 0.5
	DefaultSoftmaxPrecision = 100
	DefaultVisitsPrecision  = 1
	DefaultRolloutLength    = 5
	DefaultVMPIterations    = 32
	DefaultVMPTolerance     = 1e-9
	DefaultWindow           = 32
	DefaultNoveltyScale     = 10
	DefaultNoveltyPrior     = 1
)

// ptr returns a pointer to a copy of x.
func ptr(x float64) *float64 { return &x }

// Resolved returns the options with every default filled in: a zero field
// (a nil pointer) takes its documented default. The pointers of the result
// are its own.
func (o Options) Resolved() Options {
	r := o
	if r.Iterations == 0 {
		r.Iterations = DefaultIterations
	}
	r.Exploration = ptr(DefaultExploration)
	if o.Exploration != nil {
		r.Exploration = ptr(*o.Exploration)
	}
	r.ActionPrecision = ptr(DefaultSoftmaxPrecision)
	switch {
	case o.ActionPrecision != nil:
		r.ActionPrecision = ptr(*o.ActionPrecision)
	case o.ActionSelection == Visits:
		r.ActionPrecision = ptr(DefaultVisitsPrecision)
	}
	if r.RolloutLength == 0 {
		r.RolloutLength = DefaultRolloutLength
	}
	if r.VMPIterations == 0 {
		r.VMPIterations = DefaultVMPIterations
	}
	if r.VMPTolerance == 0 {
		r.VMPTolerance = DefaultVMPTolerance
	}
	if r.Window == 0 {
		r.Window = DefaultWindow
	}
	if r.Past == pomdp.PastDefault {
		// Exact filtering of the past, except with global inference,
		// which runs VMP over the past and the tree together.
		r.Past = pomdp.PastFilter
		if r.GlobalInference {
			r.Past = pomdp.PastVMP
		}
	}
	r.NoveltyScale = ptr(DefaultNoveltyScale)
	if o.NoveltyScale != nil {
		r.NoveltyScale = ptr(*o.NoveltyScale)
	}
	if r.NoveltyPrior == 0 {
		r.NoveltyPrior = DefaultNoveltyPrior
	}
	if o.LearningRate != nil {
		r.LearningRate = ptr(*o.LearningRate)
	}
	if o.Forgetting != nil {
		r.Forgetting = ptr(*o.Forgetting)
	}
	return r
}

// Bounds of the novelty options: the weights W = ½ (1/a - 1/a_0) of the
// novelty term grow as 1/κ, and below about 1e-6 (or with a scale above
// 1e6) a bonus of 1e7 nats or more would swamp every other cost; at 1e-308
// 1/a overflows.
const (
	MinNoveltyPrior = 1e-6
	MaxNoveltyPrior = 1e6
	MaxNoveltyScale = 1e6
)

// Preset names (PresetByName).
const (
	PresetScaleFreeName = "scale-free"
	PresetPaperName     = "paper"
	PresetHPName        = "hp"
	Preset3MFName       = "3mf"
)

// PresetNames lists the presets in the order the documentation gives them.
var PresetNames = []string{PresetScaleFreeName, PresetPaperName, PresetHPName, Preset3MFName}

// Preset3MF returns the algorithm of the BTAI_3MF agent (Champion et al.,
// "Multimodal and multifactor branching time active inference", Neural
// Computation 36(11), 2024; its code, main_BTAI_3MF.py): UCT on
// -G_J/n_J + C sqrt(ln n / n_J) with C = 2.4 and the root counting one
// visit of its own (UCT3MF); every action expanded at the selected node,
// each child's cost its expected free energy (risk + ambiguity, Classic)
// from the predicted beliefs (Predictive) with one visit; the least child
// cost added to the expanded node and every ancestor (MinBackward); the
// most visited root child taken, ties to the first action
// (MostVisitedFirst); the tree discarded after each action; the past
// inferred by factorised filtering (pomdp.PastFactorised). 150 iterations
// per action, the author's setting at granularity 1 of dSprites.
func Preset3MF() Options {
	return Options{Iterations: 150, Exploration: ptr(2.4), Selection: UCT3MF, Inference: Predictive,
		ActionSelection: MostVisitedFirst, Past: pomdp.PastFactorised}.Resolved()
}

// DefaultOptions returns the default options: PresetScaleFree.
func DefaultOptions() Options { return PresetScaleFree() }

// PresetPaper returns the paper's literal algorithm (Champion et al.,
// Branching Time Active Inference, sections 6.3 and 6.4): the unexplored
// children of a node first, then UCT on the average costs with C_p = 2;
// 100 iterations per action; local VMP on the new nodes; the classic cost
// (risk + ambiguity); min-backward propagation; softmax action selection
// with precision 100; the paper's mean field over the past.
func PresetPaper() Options {
	return Options{Iterations: 100, Exploration: ptr(2), Selection: UnexploredFirst, ActionSelection: Softmax, Past: pomdp.PastVMP}.Resolved()
}

// PresetHP returns the settings of the paper author's C++ implementation
// (Homing-Pigeon): PresetPaper with every child competing by UCT, a new
// child counting as visited once (Selection UCT).
func PresetHP() Options {
	o := PresetPaper()
	o.Selection = UCT
	return o
}

// PresetScaleFree returns arbor's default: PresetPaper with UCT on average
// costs normalised to [0, 1] by the range seen in the tree
// (NormalizedUCT), the exploration constant C = 0.5 and 1,000 iterations
// per action, both chosen by measurement, the most visited action and
// exact filtering of the past, chosen by measurement on mazes and short
// epistemic tasks together. Neither its tree selection nor its action
// selection depends on the scale of the costs (docs/btai.md, "The
// scale-free default" and "Short epistemic tasks").
func PresetScaleFree() Options { return Options{}.Resolved() }

// PresetByName returns the preset called name (see PresetNames).
func PresetByName(name string) (Options, error) {
	switch name {
	case PresetScaleFreeName:
		return PresetScaleFree(), nil
	case PresetPaperName:
		return PresetPaper(), nil
	case PresetHPName:
		return PresetHP(), nil
	case Preset3MFName:
		return Preset3MF(), nil
	}
	return Options{}, fmt.Errorf("btai: unknown preset %q (want %s)", name, strings.Join(PresetNames, ", "))
}

// Validate returns an error naming the first invalid option of the
// resolved options (Resolved). A nil *Options stands for the defaults, as
// in NewAgent.
func (o *Options) Validate() error {
	var r Options
	if o != nil {
		r = *o
	}
	r = r.Resolved()
	return apiError(r.validate())
}

func (o *Options) validate() error {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case o.Iterations < 1 || o.Iterations > 10_000_000:
		return fmt.Errorf("iterations %d, want 1..10000000", o.Iterations)
	case !finite(*o.Exploration) || *o.Exploration < 0:
		return fmt.Errorf("exploration %v, want a finite number >= 0", *o.Exploration)
	case o.Selection < NormalizedUCT || o.Selection > UCT3MF:
		return fmt.Errorf("selection %v invalid", o.Selection)
	case o.Cost < Classic || o.Cost > FEEF:
		return fmt.Errorf("cost %v invalid", o.Cost)
	case o.Propagation < MinBackward || o.Propagation > Forward:
		return fmt.Errorf("propagation %v invalid", o.Propagation)
	case o.Inference < VMP || o.Inference > Predictive:
		return fmt.Errorf("inference %v invalid", o.Inference)
	case o.ActionSelection < MostVisited || o.ActionSelection > MostVisitedFirst:
		return fmt.Errorf("action selection %v invalid", o.ActionSelection)
	case !finite(*o.ActionPrecision) || *o.ActionPrecision < 0:
		return fmt.Errorf("action precision %v, want a finite number >= 0", *o.ActionPrecision)
	case o.Rollouts < 0 || o.Rollouts > 10_000:
		return fmt.Errorf("rollouts %d, want 0..10000", o.Rollouts)
	case o.Rollouts > 0 && (o.RolloutLength < 1 || o.RolloutLength > 1000):
		return fmt.Errorf("rollout length %d, want 1..1000", o.RolloutLength)
	case o.VMPIterations < 1:
		return fmt.Errorf("VMP iterations %d, want >= 1", o.VMPIterations)
	case o.Past != pomdp.PastDefault && o.Past != pomdp.PastVMP && o.Past != pomdp.PastFilter && o.Past != pomdp.PastFactorised:
		return fmt.Errorf("past inference %d, want vmp, filter or factorised", int(o.Past))
	case o.Past == pomdp.PastFactorised && o.GlobalInference:
		return fmt.Errorf("past inference factorised with global inference: global VMP would redo the past by mean field (use local inference, or past inference vmp)")
	case o.Past == pomdp.PastFilter && o.GlobalInference:
		return fmt.Errorf("past inference filter with global inference: global VMP would redo the past by mean field (use local inference, or past inference vmp)")
	case !(o.VMPTolerance > 0) || !finite(o.VMPTolerance):
		return fmt.Errorf("VMP tolerance %v, want > 0", o.VMPTolerance)
	case o.TrialSteps < 0 || o.TrialSteps > MaxTrialSteps:
		return fmt.Errorf("trial steps %d, want 0 (no limit) ..%d", o.TrialSteps, MaxTrialSteps)
	case o.Window < WindowAll || o.Window == 1:
		return fmt.Errorf("window %d, want WindowAll (-1, keep everything) or >= 2", o.Window)
	case o.Novelty && !(*o.NoveltyScale >= 0 && *o.NoveltyScale <= MaxNoveltyScale):
		return fmt.Errorf("novelty scale %v, want 0..%g", *o.NoveltyScale, float64(MaxNoveltyScale))
	case o.Novelty && !(o.NoveltyPrior >= MinNoveltyPrior && o.NoveltyPrior <= MaxNoveltyPrior):
		return fmt.Errorf("novelty prior %v, want %g..%g", o.NoveltyPrior, MinNoveltyPrior, float64(MaxNoveltyPrior))
	}
	if err := (pomdp.Learning{Rate: o.LearningRate, Forgetting: o.Forgetting}).Validate(); err != nil {
		return err
	}
	return nil
}
