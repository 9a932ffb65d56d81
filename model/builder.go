package model

import "fmt"

// Builder writes a model in Go: typed handles for the variables, one call
// per factor, and a sticky error, so that repeated structure is a plain
// loop and the model has one error check, after Build. It fills a Spec and
// Build validates it exactly as a model file (FromSpec): the same fault
// gets the same message.
//
//	b := model.New()
//	B := b.Dirichlet("B", ones)      // a learned 3×3 transition matrix
//	s := b.Categorical("s0", 3).Prior([]float64{1, 0, 0})
//	for t := 1; t < 8; t++ {
//		next := b.Categorical(fmt.Sprint("s", t), 3).From(B, s)
//		b.Categorical(fmt.Sprint("o", t), 3).Observe(obs[t]).Given(A, next)
//		s = next
//	}
//	m, err := b.Build("hmm")
//
// The zero Builder is an empty builder ready to use, as New's is. The
// methods of a nil *Builder panic (a programming error).
type Builder struct {
	spec  Spec
	index map[string]int // variable name -> position
	err   error
}

// Var is a handle on a variable of one Builder, returned by its
// Categorical, Dirichlet and Gamma. A handle of another Builder, or the
// zero Var, passed to a handle's method is a fault that Build returns. The
// zero Var belongs to no Builder, so nothing could record a fault of its
// own methods: they panic (a programming error).
type Var struct {
	b    *Builder
	name string
	elem int // an element of an array (Array.At): its flat index + 1; 0 for a variable of its own
}

// New returns an empty builder.
func New() *Builder { return &Builder{index: map[string]int{}} }

// Err returns the first fault so far (Build returns it too).
func (b *Builder) Err() error { return apiError(b.err) }

func (b *Builder) fail(format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf("model: "+format, args...)
	}
}

// builder returns v's builder, and panics for the zero Var (documented on
// Var).
func (v Var) builder() *Builder {
	if v.b == nil {
		panic("model: method of the zero Var, which belongs to no Builder (handles come from Builder.Categorical, Dirichlet and Gamma)")
	}
	return v.b
}

func (b *Builder) variable(name, family string, shape []int) Var {
	if b.err != nil {
		return Var{b: b, name: name}
	}
	if _, dup := b.index[name]; dup {
		b.fail("variable %q added twice", name)
		return Var{b: b, name: name}
	}
	if b.index == nil { // the zero Builder
		b.index = map[string]int{}
	}
	b.index[name] = len(b.spec.Variables)
	b.spec.Variables = append(b.spec.Variables, VariableSpec{Name: name, Family: family, Shape: shape})
	return Var{b: b, name: name}
}

// own reports whether v is a handle of this builder, recording a fault
// otherwise.
func (b *Builder) own(role string, v Var) bool {
	if v.b == nil {
		b.fail("%s: the zero Var, not a variable of this model", role)
		return false
	}
	if v.b != b {
		b.fail("%s %q: a variable of another model", role, v.name)
		return false
	}
	return true
}

// Categorical adds a categorical variable with k outcomes.
func (b *Builder) Categorical(name string, k int) Var {
	return b.variable(name, "categorical", []int{k})
}

// Dirichlet adds a Dirichlet variable with the prior concentrations alpha
// (its shape, [K] or [K, M1, ...]: the first axis is the outcome axis),
// bound by a Dirichlet prior factor.
func (b *Builder) Dirichlet(name string, alpha Tensor) Var {
	v := b.variable(name, "dirichlet", alpha.Shape)
	b.factor(FactorSpec{Node: "dirichlet", Out: name, Alpha: &alpha})
	return v
}

// Gamma adds a Gamma variable with the prior Gamma(shape, rate).
func (b *Builder) Gamma(name string, shape, rate float64) Var {
	v := b.variable(name, "gamma", nil)
	b.factor(FactorSpec{Node: "gamma", Out: name, Shape: &shape, Rate: &rate})
	return v
}

func (b *Builder) factor(f FactorSpec) {
	if b.err == nil {
		b.spec.Factors = append(b.spec.Factors, f)
	}
}

// Prior adds P(v) = Cat(p) with a literal probability vector, and returns
// v.
func (v Var) Prior(p []float64) Var {
	v.builder().factor(FactorSpec{Node: "categorical", Out: v.name, P: &Value{Tensor: &Tensor{Data: p, Shape: []int{len(p)}}}})
	return v
}

// PriorFrom adds P(v) = Cat(θ) with θ a Dirichlet variable, and returns v.
func (v Var) PriorFrom(theta Var) Var {
	if v.builder().own("prior", theta) {
		v.builder().factor(FactorSpec{Node: "categorical", Out: v.name, P: &Value{Var: theta.name}})
	}
	return v
}

// From adds P(v | parents) = Cat(matrix[:, parents...]) with the matrix a
// Dirichlet variable of shape [|v|, |parent_1|, ...] (learned), the parents
// in the order of its axes, and returns v.
func (v Var) From(matrix Var, parents ...Var) Var {
	if !v.builder().own("matrix", matrix) {
		return v
	}
	return v.transition(&Value{Var: matrix.name}, parents)
}

// Given adds P(v | parents) = Cat(matrix[:, parents...]) with a literal
// matrix of shape [|v|, |parent_1|, ...] (every column a distribution),
// the parents in the order of its axes, and returns v.
func (v Var) Given(matrix Tensor, parents ...Var) Var {
	return v.transition(&Value{Tensor: &matrix}, parents)
}

func (v Var) transition(m *Value, parents []Var) Var {
	in := make([]string, len(parents))
	for i, p := range parents {
		if !v.builder().own(fmt.Sprintf("parent %d of %q", i+1, v.name), p) {
			return v
		}
		in[i] = p.name
	}
	v.builder().factor(FactorSpec{Node: "transition", Out: v.name, In: in, Matrix: m})
	return v
}

// Observe clamps v to outcome index, and returns v.
func (v Var) Observe(index int) Var {
	v.builder().setObserved(v, &Evidence{Index: index})
	return v
}

// ObserveSoft clamps v to the probability vector p (soft evidence), and
// returns v.
func (v Var) ObserveSoft(p []float64) Var {
	v.builder().setObserved(v, &Evidence{Index: -1, Probs: p})
	return v
}

func (b *Builder) setObserved(v Var, e *Evidence) {
	if b.err != nil || !b.own("observed variable", v) {
		return
	}
	if i, ok := b.index[v.name]; ok {
		if v.elem > 0 {
			b.observeElement(i, v.elem-1, e)
			return
		}
		b.spec.Variables[i].Observed = e
	}
}

// Softmax adds the policy prior P(v | γ) = softmax(-γ G) over v with the
// precision γ a Gamma variable, and returns v. Its treatment is the file's
// default: collapsed under VMP (v kept conditional on γ), exact mean field
// under sum-product (docs/models.md, "A precision shared across trials").
func (v Var) Softmax(precision Var, G []float64) Var {
	if v.builder().own("precision", precision) {
		v.builder().factor(FactorSpec{Node: "softmax", Out: v.name, Precision: precision.name, Values: &Tensor{Data: G, Shape: []int{len(G)}}})
	}
	return v
}

// Name names the factor added last (in errors, DOT and output).
func (b *Builder) Name(name string) *Builder {
	if b.err == nil && len(b.spec.Factors) > 0 {
		b.spec.Factors[len(b.spec.Factors)-1].Name = name
	}
	return b
}

// Settings sets the run settings.
func (b *Builder) Settings(s SettingsSpec) *Builder {
	b.spec.Settings = &s
	return b
}

// Spec returns the model described so far.
func (b *Builder) Spec() Spec { return b.spec }

// Build validates the model as a model file would be (FromSpec) and builds
// it; name is used in errors. It returns the first fault of the builder
// if there was one.
func (b *Builder) Build(name string) (*Model, error) {
	if b.err != nil {
		return nil, apiError(b.err)
	}
	return apiResult(FromSpec(name, b.spec))
}
