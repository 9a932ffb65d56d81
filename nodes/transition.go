package nodes

import (
	"fmt"
	"math"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/messages"
)

// TransitionOut is the interface index of a Transition's output; parents
// follow as TransitionOut+1 .. TransitionOut+n, and a Dirichlet-distributed
// matrix comes last (see Transition.MatrixInterface).
const TransitionOut = 0

// Transition is the factor P(out | in_1, ..., in_n) = Cat(out; M[:, in_1,
// ..., in_n]) with one or more categorical parents, where M is a literal
// tensor (every column a distribution) or a Dirichlet-distributed tensor
// variable (the A and B of active inference). Its log-density is the
// multilinear form <ln M, u_out ⊗ u_in1 ⊗ ... ⊗ u_inn>, so its messages are
//
//	to out:  E[ln M] ⊙ [q(in_1), ..., q(in_n)]
//	to in_i: E[ln M] ⊙ [q(out), q(in_1), ..., q(in_n) but q(in_i)]
//	to M:    ⊗[q(out), q(in_1), ..., q(in_n)]
//
// (paper section 6.2, Appendix A), all derived through messages.Multilinear.
type Transition struct {
	conjugate
	parents int
	param   bool
}

// NewTransition returns a Transition over the literal tensor matrix (copied)
// of the given shape [|out|, |in_1|, ..., |in_n|], n >= 1, row-major. Every
// column (over axis 0) must sum to 1 within 1e-6; zeros are allowed.
func NewTransition(matrix []float64, shape []int) (*Transition, error) {
	if len(shape) < 2 {
		return nil, fmt.Errorf("nodes: transition: shape %v, want [|out|, |in_1|, ...] with at least one parent", shape)
	}
	if _, err := messages.ShapeLen(shape); err != nil {
		return nil, fmt.Errorf("nodes: transition: %w", err)
	}
	if err := expfam.ValidateColumns(matrix, shape, 1e-6); err != nil {
		return nil, fmt.Errorf("nodes: transition matrix: %w", err)
	}
	logm := make([]float64, len(matrix))
	for i, x := range matrix {
		logm[i] = math.Log(x)
	}
	// logm is new and the shape was checked above, so the tensor takes
	// logm as it is (messages.NewTensor would copy it once more: on a
	// large literal tensor that copy is the peak of building the model).
	w := messages.Tensor{Data: logm, Shape: append([]int(nil), shape...)}
	return newTransition(w, shape, false)
}

// NewTransitionDirichlet returns a Transition whose matrix is a Dirichlet
// variable of shape [|out|, |in_1|, ..., |in_n|], bound to the last
// interface.
func NewTransitionDirichlet(shape []int) (*Transition, error) {
	if len(shape) < 2 {
		return nil, fmt.Errorf("nodes: transition: shape %v, want [|out|, |in_1|, ...] with at least one parent", shape)
	}
	if _, err := messages.ShapeLen(shape); err != nil {
		return nil, fmt.Errorf("nodes: transition: %w", err)
	}
	return newTransition(messages.Tensor{}, shape, true)
}

func newTransition(w messages.Tensor, shape []int, param bool) (*Transition, error) {
	n := len(shape) - 1
	ifs := make([]messages.Interface, 0, n+2)
	axes := make([]int, n+1)
	ifs = append(ifs, messages.Interface{Name: "out", Family: expfam.CategoricalFamily, Shape: []int{shape[0]}})
	for i := 1; i <= n; i++ {
		name := "in"
		if n > 1 {
			name = fmt.Sprintf("in%d", i)
		}
		ifs = append(ifs, messages.Interface{Name: name, Family: expfam.CategoricalFamily, Shape: []int{shape[i]}})
	}
	for i := range axes {
		axes[i] = i
	}
	p := -1
	if param {
		p = n + 1
		ifs = append(ifs, messages.Interface{Name: "matrix", Family: expfam.DirichletFamily, Shape: append([]int(nil), shape...)})
	}
	form, err := messages.NewMultilinear(w, shape, p, axes, 0)
	if err != nil {
		return nil, err
	}
	return &Transition{conjugate: conjugate{kind: "transition", ifs: ifs, form: form}, parents: n, param: param}, nil
}

// Parents returns the number of parents n.
func (t *Transition) Parents() int { return t.parents }

// MatrixInterface returns the interface index of the Dirichlet matrix, or
// -1 for a literal matrix.
func (t *Transition) MatrixInterface() int {
	if t.param {
		return t.parents + 1
	}
	return -1
}
