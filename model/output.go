package model

import (
	"cmp"
	"slices"

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
	// The multivariate and Beta posteriors (mvoutput.go).
	Mv *MvPosterior `json:"-"`
}

// InferOutput is the output of `arbor infer --json`. Its JSON form
// (MarshalJSON, docs/formats.md) writes each array variable as one entry
// of "posteriors": the nested arrays of its elements' posteriors, null
// for an observed element; UnmarshalJSON reads it back into Posteriors
// and Arrays.
type InferOutput struct {
	Iterations int       `json:"iterations"`
	Converged  bool      `json:"converged"`
	FreeEnergy []float64 `json:"free_energy"`
	// Posteriors holds every hidden variable's posterior by name, each
	// hidden element of an array under its own name ("x[3]", "x[1,2]").
	Posteriors map[string]Posterior `json:"posteriors"`
	// Arrays holds the array variables of the output (nil for a model
	// without arrays): each element's posterior in index order. An array
	// whose elements are all observed is left out, as an observed scalar
	// variable is.
	Arrays map[string]ArrayPosterior `json:"-"`
}

// ArrayPosterior is the posterior of an array variable: its size (one
// extent per dimension) and its elements' posteriors in index order,
// row-major (x[0,0], x[0,1], ..., x[1,0], ...), nil for an observed
// element.
type ArrayPosterior struct {
	Size     []int
	Elements []*Posterior
}

// ArrayVariable is an array variable of a model (docs/formats.md, "Sizes,
// arrays and loops"): its elements are the variables
// Model.Variables[First : First+len(Elements)], in index order, row-major.
type ArrayVariable struct {
	Name     string
	Family   expfam.Family
	Size     []int
	First    int
	Elements []*ffg.Variable
}

// Arrays returns the array variables of m in the order of m.Variables
// (nil for a model without arrays). After Infer with a data set that sets
// a size, they are those of the data set's build. The slices belong to m.
func (m *Model) Arrays() []ArrayVariable {
	if m == nil || m.loops == nil || len(m.loops.arrays) == 0 {
		return nil
	}
	out := make([]ArrayVariable, 0, len(m.loops.arrays))
	for name, a := range m.loops.arrays {
		n := 1
		for _, d := range a.dims {
			n *= d
		}
		out = append(out, ArrayVariable{Name: name, Family: a.fam, Size: a.dims, First: a.first, Elements: m.Variables[a.first : a.first+n : a.first+n]})
	}
	// Empty arrays share a First with the next variable: the file's order
	// among them is not kept, only their place among the variables.
	slices.SortFunc(out, func(x, y ArrayVariable) int {
		return cmp.Or(cmp.Compare(x.First, y.First), cmp.Compare(len(x.Elements), len(y.Elements)), cmp.Compare(x.Name, y.Name))
	})
	return out
}

// Listed reports whether the array is listed among the posteriors: it has
// a hidden element, or no elements at all.
func (a ArrayVariable) Listed() bool {
	if len(a.Elements) == 0 {
		return true
	}
	for _, v := range a.Elements {
		if !v.Observed() {
			return true
		}
	}
	return false
}

// PosteriorOf returns the posterior of v in its JSON form. A nil v is a
// programming error, for which it panics, as the methods of a nil
// *ffg.Variable do.
func PosteriorOf(v *ffg.Variable) Posterior {
	if v == nil {
		panic("model: PosteriorOf(nil)")
	}
	return posteriorOf(v, new(expfam.Normal), new(expfam.Gamma))
}

// posteriorOf is PosteriorOf with the storage of a normal's or a gamma's
// numbers given, so that a writer of 10^5 posteriors allocates none.
func posteriorOf(v *ffg.Variable, n *expfam.Normal, g *expfam.Gamma) Posterior {
	p := Posterior{Family: v.Family().String()}
	switch v.Family() {
	case expfam.CategoricalFamily:
		p.P = append([]float64(nil), v.Probs()...)
	case expfam.DirichletFamily:
		p.Alpha = nest(append([]float64(nil), v.Alpha()...), v.Shape())
	case expfam.GammaFamily:
		*g = v.Gamma()
		p.Shape, p.Rate = &g.Shape, &g.Rate
	case expfam.NormalFamily:
		*n = v.Normal()
		p.Mean, p.Variance = &n.Mean, &n.Var
	default:
		mvPosterior(&p, v)
	}
	return p
}

// Output assembles the `arbor infer --json` object for the hidden
// variables of m after a run. A nil res stands for no run (no sweeps, an
// empty trace: the posteriors as they are); a nil or zero m has no
// posteriors. WriteOutput writes its JSON without assembling it.
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
	arrays := m.Arrays()
	var posts []*Posterior // by position in m.Variables, for the arrays
	if arrays != nil {
		posts = make([]*Posterior, len(m.Variables))
		out.Arrays = map[string]ArrayPosterior{}
	}
	for i, v := range m.Variables {
		if !v.Observed() {
			p := PosteriorOf(v)
			out.Posteriors[v.Name()] = p
			if posts != nil {
				posts[i] = &p
			}
		}
	}
	for _, a := range arrays {
		if a.Listed() {
			out.Arrays[a.Name] = ArrayPosterior{Size: slices.Clone(a.Size), Elements: slices.Clone(posts[a.First : a.First+len(a.Elements)])}
		}
	}
	return out
}
