package aci

import (
	"fmt"
	"math"
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

// StatePosterior returns the exact posterior over the current state after
// the single observation obs: q_s = softmax(ln D + ln A[obs,:]), with
// ln 0 = -Inf so that states with D[s] A[obs,s] = 0 get probability 0. It
// returns an error when obs is out of range or has probability 0 under the
// model. dst is allocated when nil or too short.
func StatePosterior(dst []float64, m *POMDP, obs int) ([]float64, error) {
	if err := checkModel(m); err != nil {
		return nil, err
	}
	if obs < 0 || obs >= m.no {
		return nil, fmt.Errorf("--obs %d: out of range [0, %d) (number of observations)", obs, m.no)
	}
	ns := m.ns
	if cap(dst) < ns {
		dst = make([]float64, ns)
	}
	dst = dst[:ns]
	mx := math.Inf(-1)
	for s := range ns {
		dst[s] = m.logD[s] + m.logA[obs*ns+s]
		mx = math.Max(mx, dst[s])
	}
	if math.IsInf(mx, -1) {
		return nil, fmt.Errorf("--obs %d: observation has probability 0 under D and A", obs)
	}
	sum := 0.0
	for s, x := range dst {
		dst[s] = math.Exp(x - mx)
		sum += dst[s]
	}
	for s := range dst {
		dst[s] /= sum
	}
	return dst, nil
}

// Eval implements `arbor aci eval --model M --obs obs --horizon horizon
// --gamma gamma` (docs/cli.md): it infers the posterior over s_0 from the
// observation (StatePosterior), scores every policy of length horizon
// (EvaluatePolicies, risk + ambiguity), and returns q_pi = softmax(-gamma G)
// and the action marginal. Errors name the flag at fault.
func Eval(m *POMDP, obs int, horizon int, gamma float64) (*EvalResult, error) {
	if err := checkModel(m); err != nil {
		return nil, err
	}
	if err := checkGamma("--gamma", gamma); err != nil {
		return nil, err
	}
	if _, err := NumPolicies(m.nu, horizon, MaxPolicies); err != nil {
		return nil, fmt.Errorf("--%v", err)
	}
	qs, err := StatePosterior(nil, m, obs)
	if err != nil {
		return nil, err
	}
	ps, err := EvaluatePolicies(m, qs, horizon, nil)
	if err != nil {
		return nil, err
	}
	qpi, err := ps.Posterior(nil, gamma)
	if err != nil {
		return nil, err
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
