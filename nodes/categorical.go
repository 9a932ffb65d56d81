package nodes

import (
	"fmt"
	"math"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/messages"
)

// Interface indices of a Categorical node.
const (
	CategoricalOut = 0 // the categorical variable x
	CategoricalP   = 1 // the Dirichlet parameter p (Dirichlet-distributed p only)
)

// Categorical is the factor P(x | p) = Cat(x; p), with p either a literal
// probability vector or a Dirichlet-distributed variable. Its log-density is
// <ln p, one-hot(x)>, linear in both neighbours' sufficient statistics
// (paper Appendix C), so its messages are
//
//	to x: E[ln p]            (ln p when p is literal)
//	to p: E[one-hot(x)] = q(x)
//
// derived through messages.Multilinear.
type Categorical struct{ conjugate }

// NewCategorical returns a Categorical node over a literal probability
// vector p (copied). Zeros are allowed (ln 0 = -Inf, with 0 ln 0 = 0).
func NewCategorical(p []float64) (*Categorical, error) {
	if err := expfam.ValidateDistribution(p, 1e-6); err != nil {
		return nil, fmt.Errorf("nodes: categorical p: %w", err)
	}
	logp := make([]float64, len(p))
	for i, x := range p {
		logp[i] = math.Log(x)
	}
	w, err := messages.NewTensor(logp, []int{len(p)})
	if err != nil {
		return nil, err
	}
	form, err := messages.NewMultilinear(w, w.Shape, -1, []int{CategoricalOut}, 0)
	if err != nil {
		return nil, err
	}
	return &Categorical{conjugate{
		kind: "categorical",
		ifs:  []messages.Interface{{Name: "out", Family: expfam.CategoricalFamily, Shape: []int{len(p)}}},
		form: form,
	}}, nil
}

// NewCategoricalDirichlet returns a Categorical node over k outcomes whose
// parameter p is a Dirichlet variable of shape [k], bound to interface
// CategoricalP.
func NewCategoricalDirichlet(k int) (*Categorical, error) {
	if k < 1 {
		return nil, fmt.Errorf("nodes: categorical: %d outcomes, want >= 1", k)
	}
	form, err := messages.NewMultilinear(messages.Tensor{}, []int{k}, CategoricalP, []int{CategoricalOut}, 0)
	if err != nil {
		return nil, err
	}
	return &Categorical{conjugate{
		kind: "categorical",
		ifs: []messages.Interface{
			{Name: "out", Family: expfam.CategoricalFamily, Shape: []int{k}},
			{Name: "p", Family: expfam.DirichletFamily, Shape: []int{k}},
		},
		form: form,
	}}, nil
}
