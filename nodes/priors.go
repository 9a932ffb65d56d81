package nodes

import (
	"fmt"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/messages"
)

// DirichletOut and GammaOut are the output interfaces of the prior nodes.
const (
	DirichletOut = 0
	GammaOut     = 0
)

// Dirichlet is a fixed Dirichlet prior P(p) = Dir(p; alpha) over a vector or
// a tensor of independent columns (outcome axis first). Its log-density is
// <alpha - 1, ln p> - ln B(alpha) (paper Appendix C, eq. D.0), so its
// message to p is alpha - 1: the natural parameters that, summed with the
// count messages from the children, give the posterior Dir(alpha + counts).
type Dirichlet struct {
	conjugate
	alpha expfam.DirichletTensor
}

// NewDirichlet returns a Dirichlet prior with concentrations alpha (copied),
// row-major over shape.
func NewDirichlet(alpha []float64, shape []int) (*Dirichlet, error) {
	d, err := expfam.NewDirichletTensor(alpha, shape)
	if err != nil {
		return nil, fmt.Errorf("nodes: dirichlet alpha: %w", err)
	}
	w, err := messages.NewTensor(d.Natural(nil), []int{len(alpha)})
	if err != nil {
		return nil, err
	}
	form, err := messages.NewMultilinear(w, w.Shape, -1, []int{DirichletOut}, -d.LogNormalizer())
	if err != nil {
		return nil, err
	}
	return &Dirichlet{
		conjugate: conjugate{
			kind: "dirichlet",
			ifs:  []messages.Interface{{Name: "out", Family: expfam.DirichletFamily, Shape: append([]int(nil), shape...)}},
			form: form,
		},
		alpha: d,
	}, nil
}

// Alpha returns the prior's concentrations. The slice must not be modified.
func (d *Dirichlet) Alpha() []float64 { return d.alpha.Alpha }

// Gamma is a fixed gamma prior P(g) = Gamma(g; shape, rate), with
// log-density <[shape - 1, -rate], [ln g, g]> + shape ln rate - ln Γ(shape).
type Gamma struct {
	conjugate
	prior expfam.Gamma
}

// NewGamma returns a gamma prior; shape and rate must be finite and > 0.
func NewGamma(shape, rate float64) (*Gamma, error) {
	g := expfam.Gamma{Shape: shape, Rate: rate}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("nodes: gamma prior: %w", err)
	}
	w, err := messages.NewTensor(g.Natural(nil), []int{2})
	if err != nil {
		return nil, err
	}
	form, err := messages.NewMultilinear(w, w.Shape, -1, []int{GammaOut}, -g.LogNormalizer())
	if err != nil {
		return nil, err
	}
	return &Gamma{
		conjugate: conjugate{
			kind: "gamma",
			ifs:  []messages.Interface{{Name: "out", Family: expfam.GammaFamily}},
			form: form,
		},
		prior: g,
	}, nil
}

// Prior returns the prior distribution.
func (g *Gamma) Prior() expfam.Gamma { return g.prior }
