package pomdp

import (
	"fmt"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
)

// FigureSteps is the number of transitions of the generative model that
// arbor dot draws of a POMDP file by default: enough for the steps to be
// found as repeated slices (ffg.MinRepeat) and folded into a plate.
const FigureSteps = 3

// FigureGraph returns a new factor graph to draw the generative model of m
// over the given number of transitions (steps >= 0: the states and
// outcomes of t = 0 … steps). It is the structure only: every table is
// uniform, since the figure shows no numbers; draw it, do not infer on it.
//
//   - per factor f, the states f₀, f₁, ... (labelled with the factor's
//     name), D[f] over f₀ and B[f] from f_{t−1} to f_t;
//   - per modality m, the outcomes m_t (observed, drawn gray; o[m]_t for a
//     modality named as a factor) with A[m] over the factors of its
//     depends_on, and C[m] over them when the modality has preferences (a
//     C that is not uniform);
//   - the policy π, with its prior σ(−G), joined to the transition of
//     every factor that has controls (none when m has one action);
//   - the Dirichlet concentrations a[m], b[f], d[f] when m has them, as
//     variables with their priors, shared by every step.
//
// Its nodes are placed as time slices (ffg.Graph.PlaceVariable), four
// columns a step, left to right: D[f] (B[f] after t = 0), the states, A[m]
// and C[m], the outcomes; a row per factor, drawn level (D[f], f₀, B[f],
// fₜ), the modalities in order, π and σ(−G) in a row below the factors.
//
// arbor dot draws it with ffg.DOTOptions.Compact, and by default
// FigureSteps transitions folded into a plate "t = 1 … T" (FoldPlates with
// OpenRange). m must be a valid model (from New, NewFactorised, Parse or
// Load); a negative steps is an error.
func (m *Model) FigureGraph(steps int) (*ffg.Graph, error) {
	if steps < 0 {
		return nil, fmt.Errorf("pomdp: FigureGraph: steps %d, want >= 0", steps)
	}
	spec := m.FactorisedSpec()
	g := ffg.New()
	fail := func(what string, err error) error { return fmt.Errorf("%s: %w", what, err) }
	uniform := func(n int) []float64 {
		p := make([]float64, n)
		for i := range p {
			p[i] = 1 / float64(n)
		}
		return p
	}
	ones := func(n int) []float64 {
		p := make([]float64, n)
		for i := range p {
			p[i] = 1
		}
		return p
	}
	// learned adds a Dirichlet variable of the given shape with its prior.
	learned := func(label string, shape []int) (*ffg.Variable, error) {
		v, err := g.AddVariable("", expfam.DirichletFamily, shape...)
		if err != nil {
			return nil, err
		}
		v.Label = label
		n := 1
		for _, d := range shape {
			n *= d
		}
		prior, err := nodes.NewDirichlet(ones(n), shape)
		if err != nil {
			return nil, err
		}
		_, err = g.AddFactor("", prior, v)
		return v, err
	}
	nu := m.NumActions()
	var pi *ffg.Variable
	if nu > 1 {
		var err error
		if pi, err = g.AddVariable("pi", expfam.CategoricalFamily, nu); err != nil {
			return nil, apiError(fail("π", err))
		}
		prior, err := nodes.NewCategorical(uniform(nu))
		if err != nil {
			return nil, apiError(fail("π", err))
		}
		f, err := g.AddFactor("", prior, pi)
		if err != nil {
			return nil, apiError(fail("π", err))
		}
		f.Label = "σ(−G)"
		bottom := max(len(spec.Factors), len(spec.Modalities))
		g.PlaceFactor(f, ffg.DOTPlace{Column: 0, Row: bottom})
		g.PlaceVariable(pi, ffg.DOTPlace{Column: 1, Row: bottom})
	}
	index := map[string]int{}
	conc := map[string]*ffg.Variable{}
	for i, f := range spec.Factors {
		index[f.Name] = i
		if f.ConcD != nil {
			v, err := learned("d["+f.Name+"]", []int{f.NumStates})
			if err != nil {
				return nil, apiError(fail("d["+f.Name+"]", err))
			}
			conc["d"+f.Name] = v
		}
		if f.ConcB != nil {
			shape := []int{f.NumStates, f.NumStates}
			if pi != nil && f.NumControls > 1 {
				shape = append(shape, nu)
			}
			v, err := learned("b["+f.Name+"]", shape)
			if err != nil {
				return nil, apiError(fail("b["+f.Name+"]", err))
			}
			conc["b"+f.Name] = v
		}
	}
	for _, md := range spec.Modalities {
		if md.ConcA != nil {
			shape := []int{md.NumOutcomes}
			for _, dep := range md.DependsOn {
				shape = append(shape, spec.Factors[index[dep]].NumStates)
			}
			v, err := learned("a["+md.Name+"]", shape)
			if err != nil {
				return nil, apiError(fail("a["+md.Name+"]", err))
			}
			conc["a"+md.Name] = v
		}
	}
	prev := make([]*ffg.Variable, len(spec.Factors))
	for t := 0; t <= steps; t++ {
		cur := make([]*ffg.Variable, len(spec.Factors))
		for i, f := range spec.Factors {
			s, err := g.AddVariable(fmt.Sprintf("%s_%d", f.Name, t), expfam.CategoricalFamily, f.NumStates)
			if err != nil {
				return nil, apiError(fail(f.Name, err))
			}
			cur[i] = s
			var fn *ffg.FactorNode
			label := "B[" + f.Name + "]"
			if t == 0 {
				label = "D[" + f.Name + "]"
				if d := conc["d"+f.Name]; d != nil {
					c, err := nodes.NewCategoricalDirichlet(f.NumStates)
					if err != nil {
						return nil, apiError(fail(label, err))
					}
					fn, err = g.AddFactor("", c, s, d)
					if err != nil {
						return nil, apiError(fail(label, err))
					}
				} else {
					c, err := nodes.NewCategorical(uniform(f.NumStates))
					if err != nil {
						return nil, apiError(fail(label, err))
					}
					if fn, err = g.AddFactor("", c, s); err != nil {
						return nil, apiError(fail(label, err))
					}
				}
			} else {
				shape := []int{f.NumStates, f.NumStates}
				vars := []*ffg.Variable{s, prev[i]}
				if pi != nil && f.NumControls > 1 {
					shape = append(shape, nu)
					vars = append(vars, pi)
				}
				var tr *nodes.Transition
				if b := conc["b"+f.Name]; b != nil {
					tr, err = nodes.NewTransitionDirichlet(shape)
					vars = append(vars, b)
				} else {
					n := 1
					for _, d := range shape {
						n *= d
					}
					w := make([]float64, n)
					for k := range w {
						w[k] = 1 / float64(f.NumStates)
					}
					tr, err = nodes.NewTransition(w, shape)
				}
				if err != nil {
					return nil, apiError(fail(label, err))
				}
				if fn, err = g.AddFactor("", tr, vars...); err != nil {
					return nil, apiError(fail(label, err))
				}
			}
			fn.Label = label
			g.PlaceFactor(fn, ffg.DOTPlace{Column: 4 * t, Row: i, Level: true})
			g.PlaceVariable(s, ffg.DOTPlace{Column: 4*t + 1, Row: i, Level: true})
		}
		for j, md := range spec.Modalities {
			name := md.Name
			if _, clash := index[name]; clash {
				name = "o[" + name + "]" // a modality named as a factor
			}
			o, err := g.AddVariable(fmt.Sprintf("%s_%d", name, t), expfam.CategoricalFamily, md.NumOutcomes)
			if err != nil {
				return nil, apiError(fail(md.Name, err))
			}
			if name != md.Name && t == 0 {
				o.Label = name + "₀" // the plate names the others o[m]ₜ
			}
			shape := []int{md.NumOutcomes}
			vars := []*ffg.Variable{o}
			n := md.NumOutcomes
			for _, dep := range md.DependsOn {
				i := index[dep]
				shape = append(shape, spec.Factors[i].NumStates)
				vars = append(vars, cur[i])
				n *= spec.Factors[i].NumStates
			}
			var tr *nodes.Transition
			if a := conc["a"+md.Name]; a != nil {
				tr, err = nodes.NewTransitionDirichlet(shape)
				vars = append(vars, a)
			} else {
				w := make([]float64, n)
				for k := range w {
					w[k] = 1 / float64(md.NumOutcomes)
				}
				tr, err = nodes.NewTransition(w, shape)
			}
			if err != nil {
				return nil, apiError(fail("A["+md.Name+"]", err))
			}
			fn, err := g.AddFactor("", tr, vars...)
			if err != nil {
				return nil, apiError(fail("A["+md.Name+"]", err))
			}
			fn.Label = "A[" + md.Name + "]"
			g.PlaceFactor(fn, ffg.DOTPlace{Column: 4*t + 2, Row: j})
			g.PlaceVariable(o, ffg.DOTPlace{Column: 4*t + 3, Row: j})
			if err := o.Observe(0); err != nil {
				return nil, apiError(fail(md.Name, err))
			}
			if hasPreferences(md.C) {
				c, err := nodes.NewCategorical(uniform(md.NumOutcomes))
				if err != nil {
					return nil, apiError(fail("C["+md.Name+"]", err))
				}
				fc, err := g.AddFactor("", c, o)
				if err != nil {
					return nil, apiError(fail("C["+md.Name+"]", err))
				}
				fc.Label = "C[" + md.Name + "]"
				g.PlaceFactor(fc, ffg.DOTPlace{Column: 4*t + 2, Row: j})
			}
		}
		prev = cur
	}
	return g, nil
}

// hasPreferences reports whether a modality's C is not uniform.
func hasPreferences(c []float64) bool {
	for _, x := range c {
		if x != c[0] {
			return true
		}
	}
	return false
}
