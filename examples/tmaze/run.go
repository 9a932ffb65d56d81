package main

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/pomdp"
)

// Config of a T-maze run.
type Config struct {
	Trials  int    // number of trials
	Seed    uint64 // seed of the environment (cue draws, and contexts when drawn)
	Context int    // fixed context (RewardLeft or RewardRight), -1 to draw
	// Past is how the agent infers the past: pomdp.PastFilter (exact
	// filtering; the zero value gives the aci default, which is this) or
	// pomdp.PastVMP (the paper's mean field).
	Past pomdp.PastInference
}

// Steps is the number of actions per trial: start -> cue -> arm, as in the
// classic T-maze (three time points, Friston et al. 2015).
const Steps = 2

// Locations (states of the factor "location") and contexts (states of the
// factor "context").
const (
	Start, Cue, Left, Right = 0, 1, 2, 3
	RewardLeft, RewardRight = 0, 1
)

// CueValidity is the probability that the cue names the rewarded arm.
const CueValidity = 0.95

// RewardPreference and PunishmentPreference are the log-preferences of the
// outcomes of the reward modality ("none" has 0). With a symmetric
// punishment (-3), classic (non-sophisticated) active inference never
// visits the cue: the cue's only gain is the cue modality's, about
// ln 2 - H(0.95) = 0.49 nats, against the blind arm's expected reward; a
// loss-averse -6 makes the cue worth it (docs/aci.md, "The T-maze").
const (
	RewardPreference     = 3
	PunishmentPreference = -6
)

// Trial is the record of one trial.
type Trial struct {
	Index     int
	Context   int   // the true context
	Path      []int // locations visited, starting with the start location
	Actions   []int
	Rewarded  bool    // the agent ended in the rewarded arm
	PriorLeft float64 // q(context = reward left) after the first observation
}

// Straight reports whether the first move went to an arm.
func (t Trial) Straight() bool {
	return len(t.Path) > 1 && (t.Path[1] == Left || t.Path[1] == Right)
}

// VisitedCueFirst reports whether the first move went to the cue.
func (t Trial) VisitedCueFirst() bool { return len(t.Path) > 1 && t.Path[1] == Cue }

var locationNames = []string{"start", "cue", "left", "right"}

// Spec returns the T-maze as a factorised model, the Go value of
// examples/pomdp/tmaze.json: two hidden-state factors, the location
// (controlled: each control moves to its location, from an arm the agent
// stays) and the context (which arm is rewarded; uncontrolled, learned
// through its Dirichlet d = [1, 1]); three modalities, where the agent is,
// the cue (which depends on the location and the context) and the reward
// (likewise), with preferences over the reward's outcomes only.
func Spec() pomdp.FactorisedSpec {
	next := func(loc, u int) int {
		if loc == Left || loc == Right {
			return loc
		}
		return u
	}
	b := make([]float64, 4*4*4) // B[u][next][prev]
	for u := range 4 {
		for prev := range 4 {
			b[(u*4+next(prev, u))*4+prev] = 1
		}
	}
	// A[o][location][context], flat.
	where := make([]float64, 4*4)
	cue := make([]float64, 3*4*2)
	reward := make([]float64, 3*4*2)
	for loc := range 4 {
		where[loc*4+loc] = 1
		for ctx := range 2 {
			col := loc*2 + ctx
			switch loc {
			case Cue:
				named := 1 + ctx // cue-left for RewardLeft, cue-right for RewardRight
				cue[named*8+col] = CueValidity
				cue[(3-named)*8+col] = 1 - CueValidity
				reward[0*8+col] = 1
			case Start:
				cue[0*8+col] = 1
				reward[0*8+col] = 1
			default:
				cue[0*8+col] = 1
				win := (loc == Left) == (ctx == RewardLeft)
				if win {
					reward[1*8+col] = 1
				} else {
					reward[2*8+col] = 1
				}
			}
		}
	}
	return pomdp.FactorisedSpec{
		Factors: []pomdp.Factor{{
			Name: "location", NumStates: 4, States: []string{"start", "cue", "left", "right"},
			Controls: []string{"go-start", "go-cue", "go-left", "go-right"},
			B:        b, D: []float64{1, 0, 0, 0},
		}, {
			Name: "context", NumStates: 2, States: []string{"reward-left", "reward-right"},
			B: []float64{1, 0, 0, 1}, ConcD: []float64{1, 1},
		}},
		Modalities: []pomdp.Modality{{
			Name: "where", NumOutcomes: 4, Outcomes: []string{"start", "cue", "left", "right"},
			DependsOn: []string{"location"}, A: where,
		}, {
			Name: "cue", NumOutcomes: 3, Outcomes: []string{"none", "cue-left", "cue-right"},
			DependsOn: []string{"location", "context"}, A: cue,
		}, {
			Name: "reward", NumOutcomes: 3, Outcomes: []string{"none", "reward", "punishment"},
			DependsOn: []string{"location", "context"}, A: reward,
			LogC: []float64{0, RewardPreference, PunishmentPreference},
		}},
	}
}

// Model returns the agent's model: Spec, validated.
func Model() (*pomdp.Model, error) { return pomdp.NewFactorised(Spec()) }

// world returns the true process: the agent's model with the context
// fixed (context >= 0) or drawn uniformly (-1), and nothing learned.
func world(context int) (*pomdp.Model, error) {
	sp := Spec()
	ctx := &sp.Factors[1]
	ctx.ConcD, ctx.D = nil, []float64{0.5, 0.5}
	if context >= 0 {
		ctx.D = []float64{0, 0}
		ctx.D[context] = 1
	}
	return pomdp.NewFactorised(sp)
}

// Run runs cfg.Trials trials of the agent with Dirichlet learning of the
// context's d and returns their records.
func Run(cfg Config) ([]Trial, error) {
	if cfg.Context < -1 || cfg.Context > 1 {
		return nil, fmt.Errorf("context %d, want -1, %d or %d", cfg.Context, RewardLeft, RewardRight)
	}
	m, err := Model()
	if err != nil {
		return nil, err
	}
	agent, err := aci.NewAgent(m, &aci.AgentOptions{Horizon: Steps, Past: cfg.Past})
	if err != nil {
		return nil, err
	}
	w, err := world(cfg.Context)
	if err != nil {
		return nil, err
	}
	env := pomdp.NewProcess(w, rand.New(rand.NewPCG(cfg.Seed, 2)))
	// The process's joint state is location*2 + context.
	loc := func() int { return env.State() / 2 }
	ctxOff := m.FactorOffset(1)
	ctx := context.Background()
	out := make([]Trial, 0, cfg.Trials)
	for i := range cfg.Trials {
		obs := env.Reset()
		if err := agent.Reset(context.Background(), obs); err != nil {
			return nil, err
		}
		tr := Trial{Index: i, Context: env.State() % 2, Path: []int{loc()}}
		for step := range Steps {
			u, err := agent.Act(ctx)
			if err != nil {
				return nil, fmt.Errorf("trial %d step %d: %w", i+1, step, err)
			}
			if step == 0 {
				tr.PriorLeft = agent.Belief()[ctxOff+RewardLeft]
			}
			if obs, err = env.Step(u); err != nil {
				return nil, err
			}
			if err := agent.Observe(u, obs); err != nil {
				return nil, err
			}
			tr.Actions = append(tr.Actions, u)
			tr.Path = append(tr.Path, loc())
		}
		if err := agent.EndTrial(context.Background()); err != nil {
			return nil, err
		}
		last := tr.Path[len(tr.Path)-1]
		tr.Rewarded = (last == Left && tr.Context == RewardLeft) || (last == Right && tr.Context == RewardRight)
		out = append(out, tr)
	}
	return out, nil
}
