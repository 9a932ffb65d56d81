package model

import (
	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/schedule"
)

// Posterior is the JSON form of one variable's posterior (docs/formats.md).
type Posterior struct {
	Family string    `json:"family"`
	P      []float64 `json:"p,omitempty"`
	Alpha  any       `json:"alpha,omitempty"`
	Shape  *float64  `json:"shape,omitempty"`
	Rate   *float64  `json:"rate,omitempty"`
	// A normal posterior N(Mean, Variance).
	Mean     *float64 `json:"mean,omitempty"`
	Variance *float64 `json:"variance,omitempty"`
}

// InferOutput is the JSON output of `arbor infer --json`.
type InferOutput struct {
	Iterations int                  `json:"iterations"`
	Converged  bool                 `json:"converged"`
	FreeEnergy []float64            `json:"free_energy"`
	Posteriors map[string]Posterior `json:"posteriors"`
}

// PosteriorOf returns the posterior of v in its JSON form. A nil v is a
// programming error, for which it panics, as the methods of a nil
// *ffg.Variable do.
func PosteriorOf(v *ffg.Variable) Posterior {
	if v == nil {
		panic("model: PosteriorOf(nil)")
	}
	p := Posterior{Family: v.Family().String()}
	switch v.Family() {
	case expfam.CategoricalFamily:
		p.P = append([]float64(nil), v.Probs()...)
	case expfam.DirichletFamily:
		p.Alpha = nest(append([]float64(nil), v.Alpha()...), v.Shape())
	case expfam.GammaFamily:
		g := v.Gamma()
		p.Shape, p.Rate = &g.Shape, &g.Rate
	case expfam.NormalFamily:
		n := v.Normal()
		p.Mean, p.Variance = &n.Mean, &n.Var
	}
	return p
}

// Output assembles the `arbor infer --json` object for the hidden
// variables of m after a run. A nil res stands for no run (no sweeps, an
// empty trace: the posteriors as they are); a nil or zero m has no
// posteriors.
func (m *Model) Output(res *schedule.Result) InferOutput {
	if res == nil {
		res = &schedule.Result{}
	}
	out := InferOutput{
		Iterations: res.Iterations,
		Converged:  res.Converged,
		FreeEnergy: res.FreeEnergy,
		Posteriors: map[string]Posterior{},
	}
	if out.FreeEnergy == nil {
		out.FreeEnergy = []float64{}
	}
	if m == nil {
		return out
	}
	for _, v := range m.Variables {
		if !v.Observed() {
			out.Posteriors[v.Name()] = PosteriorOf(v)
		}
	}
	return out
}
