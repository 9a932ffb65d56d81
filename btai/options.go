package btai

import (
	"fmt"
	"math"
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
	return parseEnum[Cost](costNames, "cost", s)
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
	return parseEnum[Inference](inferenceNames, "inference", s)
}

// Options configures an agent. The zero value is not valid: start from
// DefaultOptions.
type Options struct {
	Iterations      int             // planning iterations per action (default 100)
	Exploration     float64         // UCT exploration constant C_p (default 2)
	Selection       Selection       // default UnexploredFirst
	Cost            Cost            // default Classic
	Propagation     Propagation     // default MinBackward
	Inference       Inference       // default VMP
	GlobalInference bool            // run VMP on the whole graph after each expansion instead of on the new nodes only
	ActionSelection ActionSelection // default Softmax
	ActionPrecision float64         // softmax precision gamma (default 100)
	Rollouts        int             // N roll-outs per expanded node (Algorithm 1); 0 disables them
	RolloutLength   int             // K, the length of each roll-out
	// VMPIterations and VMPTolerance control the local inference on new
	// nodes (defaults 32 and 1e-9).
	VMPIterations int
	VMPTolerance  float64
	// Window bounds the number of past time steps kept in the graph; older
	// steps are folded into a prior over the oldest kept state (see
	// Agent.Step). 0 keeps the whole past. Default 32.
	Window int
}

// DefaultOptions returns the defaults of DESIGN.md section 5.4.
func DefaultOptions() Options {
	return Options{
		Iterations:      100,
		Exploration:     2,
		Selection:       UnexploredFirst,
		Cost:            Classic,
		Propagation:     MinBackward,
		Inference:       VMP,
		ActionSelection: Softmax,
		ActionPrecision: 100,
		VMPIterations:   32,
		VMPTolerance:    1e-9,
		Window:          32,
	}
}

// Validate returns an error naming the first invalid option.
func (o *Options) Validate() error {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case o.Iterations < 1 || o.Iterations > 10_000_000:
		return fmt.Errorf("iterations %d, want 1..10000000", o.Iterations)
	case !finite(o.Exploration) || o.Exploration < 0:
		return fmt.Errorf("exploration %v, want a finite number >= 0", o.Exploration)
	case o.Selection < UnexploredFirst || o.Selection > UCT:
		return fmt.Errorf("selection %v invalid", o.Selection)
	case o.Cost < Classic || o.Cost > FEEF:
		return fmt.Errorf("cost %v invalid", o.Cost)
	case o.Propagation < MinBackward || o.Propagation > Forward:
		return fmt.Errorf("propagation %v invalid", o.Propagation)
	case o.Inference < VMP || o.Inference > Predictive:
		return fmt.Errorf("inference %v invalid", o.Inference)
	case o.ActionSelection < Softmax || o.ActionSelection > MinCost:
		return fmt.Errorf("action selection %v invalid", o.ActionSelection)
	case !finite(o.ActionPrecision) || o.ActionPrecision < 0:
		return fmt.Errorf("action precision %v, want a finite number >= 0", o.ActionPrecision)
	case o.Rollouts < 0 || o.Rollouts > 10_000:
		return fmt.Errorf("rollouts %d, want 0..10000", o.Rollouts)
	case o.Rollouts > 0 && (o.RolloutLength < 1 || o.RolloutLength > 1000):
		return fmt.Errorf("rollout length %d, want 1..1000", o.RolloutLength)
	case o.VMPIterations < 1:
		return fmt.Errorf("VMP iterations %d, want >= 1", o.VMPIterations)
	case !(o.VMPTolerance > 0) || !finite(o.VMPTolerance):
		return fmt.Errorf("VMP tolerance %v, want > 0", o.VMPTolerance)
	case o.Window < 0 || o.Window == 1:
		return fmt.Errorf("window %d, want 0 (keep everything) or >= 2", o.Window)
	}
	return nil
}
