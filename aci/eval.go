package aci

import (
	"fmt"
	"strings"

	"github.com/arbor-ai/arbor/pomdp"
)

// EvalResult is the output of `arbor aci eval --json` (docs/cli.md).
type EvalResult struct {
	QS          []float64 `json:"q_s"`          // posterior over s_0 given the observation
	Policies    [][]int   `json:"policies"`     // lexicographic, first action slowest
	G           []float64 `json:"G"`            // expected free energy per policy
	Risk        []float64 `json:"risk"`         // sum over tau of KL[Q(o_tau|pi) || C]
	Ambiguity   []float64 `json:"ambiguity"`    // sum over tau of E_Q(s_tau|pi) H[A(.|s)]
	QPi         []float64 `json:"q_pi"`         // softmax(-gamma G)
	ActionProbs []float64 `json:"action_probs"` // q_pi summed by first action
}

// Eval implements `arbor aci eval --model M --obs obs --horizon horizon
// --gamma gamma` (docs/cli.md): it infers the posterior over s_0 from the
// observation (StatePosterior), scores every policy of length horizon
// (EvaluatePolicies, risk + ambiguity), and returns q_pi = softmax(-gamma G)
// and the action marginal. Errors begin with the package's prefix and the
// name of the parameter at fault (gamma, horizon or obs).
func Eval(m *pomdp.Model, obs int, horizon int, gamma float64) (*EvalResult, error) {
	if err := pomdp.Check(m); err != nil {
		return nil, apiError(err)
	}
	if err := checkGamma("gamma", gamma); err != nil {
		return nil, apiError(err)
	}
	if _, err := NumPolicies(m.NumActions(), horizon, MaxPolicies); err != nil {
		return nil, apiError(err)
	}
	qs, err := pomdp.StatePosterior(nil, m, obs)
	if err != nil {
		return nil, fmt.Errorf("aci: obs %s: %w", obsText(m, obs), err)
	}
	ps, err := EvaluatePolicies(m, qs, horizon, nil)
	if err != nil {
		return nil, apiError(err)
	}
	qpi, err := ps.Posterior(nil, gamma)
	if err != nil {
		return nil, apiError(err)
	}
	return &EvalResult{
		QS:          qs,
		Policies:    ps.Policies(),
		G:           ps.G,
		Risk:        ps.Risk,
		Ambiguity:   ps.Ambiguity,
		QPi:         qpi,
		ActionProbs: ps.ActionProbs(nil, qpi),
	}, nil
}

// obsText writes observation o as a list of outcome indices: "3", or one
// outcome per modality, "0,2".
func obsText(m *pomdp.Model, o int) string {
	if m.NumModalities() == 1 {
		return fmt.Sprint(o)
	}
	out := m.DecodeObs(nil, o)
	parts := make([]string, len(out))
	for i, x := range out {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ",")
}
