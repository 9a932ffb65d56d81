package model

import (
	"fmt"

	"github.com/arbor-ai/arbor/expfam"
)

// MvParam is a parameter of an mvnormal node built in Go: its mean (Vec, a
// literal vector; MvOf, an mvnormal variable; MvAffine, A·x + b of one) or
// its precision (PrecisionMatrix, CovarianceMatrix, literal matrices;
// PrecisionOf, a wishart variable).
type MvParam struct {
	vec     []float64
	matrix  [][]float64
	offset  []float64
	v       Var
	isVar   bool
	cov     bool
	literal bool
}

// Vec is the literal mean vector x.
func Vec(x ...float64) MvParam { return MvParam{vec: x, literal: true} }

// MvOf is the mean given by the mvnormal variable v.
func MvOf(v Var) MvParam { return MvParam{v: v, isVar: true} }

// MvAffine is the mean A·v + b of the mvnormal variable v (A has a row per
// entry of the node's variable and a column per entry of v; b may be nil).
func MvAffine(v Var, a [][]float64, b []float64) MvParam {
	return MvParam{v: v, isVar: true, matrix: a, offset: b}
}

// PrecisionMatrix is the literal precision matrix Λ.
func PrecisionMatrix(rows [][]float64) MvParam { return MvParam{matrix: rows, literal: true} }

// CovarianceMatrix is the literal covariance Σ (the precision Σ⁻¹).
func CovarianceMatrix(rows [][]float64) MvParam {
	return MvParam{matrix: rows, cov: true, literal: true}
}

// PrecisionOf is the precision given by the wishart variable w.
func PrecisionOf(w Var) MvParam { return MvParam{v: w, isVar: true} }

// tensorOf writes rows as a Tensor (a ragged one is refused by Build).
func tensorOf(rows [][]float64) *Tensor {
	t := &Tensor{Shape: []int{len(rows), 0}}
	if len(rows) > 0 {
		t.Shape[1] = len(rows[0])
	}
	for _, r := range rows {
		t.Data = append(t.Data, r...)
	}
	return t
}

// MvNormal adds an mvnormal variable of dimension d.
func (b *Builder) MvNormal(name string, d int) Var {
	return b.mvVariable(name, "mvnormal", d)
}

func (b *Builder) mvVariable(name, family string, d int) Var {
	v := b.variable(name, family, nil)
	if i, ok := b.index[name]; ok && b.err == nil {
		b.spec.Variables[i].Dim = d
	}
	return v
}

// Wishart adds a wishart variable of dimension d (the size of scale) with
// the prior W(df, scale).
func (b *Builder) Wishart(name string, df float64, scale [][]float64) Var {
	v := b.mvVariable(name, "wishart", len(scale))
	b.factor(FactorSpec{Node: "wishart", Out: name, DF: &df, Scale: tensorOf(scale)})
	return v
}

// Beta adds a beta variable with the prior Beta(a, b).
func (b *Builder) Beta(name string, a, bb float64) Var {
	v := b.variable(name, "beta", nil)
	b.factor(FactorSpec{Node: "beta", Out: name, A: &a, B: &bb})
	return v
}

// ObserveVector clamps the mvnormal variable v to x, and returns v.
func (v Var) ObserveVector(x []float64) Var {
	b := v.builder()
	if err := expfam.ValidateVector(x); err != nil {
		b.fail("variable %q: observed %v", v.name, err)
		return v
	}
	b.setObserved(v, &Evidence{Index: -1, Probs: append([]float64(nil), x...)})
	return v
}

// want records a fault unless v (named role of out) is a variable of b of
// the family.
func (b *Builder) want(out, role string, v Var, family string) bool {
	if b.err != nil || !b.own(fmt.Sprintf("variable %q: %s", out, role), v) {
		return false
	}
	if f := b.family(v); f != family {
		b.fail("variable %q: %s %q is %s, want %s", out, role, v.name, f, family)
		return false
	}
	return true
}

// MvNormalFrom adds the factor N(v | mean, precision) over the mvnormal
// variable v, and returns v: mean from Vec, MvOf or MvAffine, precision
// from PrecisionMatrix, CovarianceMatrix or PrecisionOf. Shapes and
// matrices are checked by Build, as in a file.
func (v Var) MvNormalFrom(mean, precision MvParam) Var {
	b := v.builder()
	if !b.want(v.name, "out", v, "mvnormal") {
		return v
	}
	f := FactorSpec{Node: "mvnormal", Out: v.name}
	nm := &NormalMean{Mv: &MvMeanSpec{}}
	switch {
	case mean.isVar:
		if !b.want(v.name, "mean", mean.v, "mvnormal") {
			return v
		}
		nm.Var = mean.v.name
		if mean.matrix != nil {
			nm.Mv.Matrix = tensorOf(mean.matrix)
		}
		nm.Mv.OffsetVector = mean.offset
	case mean.literal && mean.vec != nil:
		nm.Mv.Vector = mean.vec
	default:
		b.fail("variable %q: mean: want Vec, MvOf or MvAffine", v.name)
		return v
	}
	f.Mean = nm
	switch {
	case precision.isVar:
		if !b.want(v.name, "precision", precision.v, "wishart") {
			return v
		}
		f.Precision = precision.v.name
	case precision.literal && precision.matrix != nil && precision.cov:
		f.Covariance = tensorOf(precision.matrix)
	case precision.literal && precision.matrix != nil:
		f.PrecisionMatrix = tensorOf(precision.matrix)
	default:
		b.fail("variable %q: precision: want PrecisionMatrix, CovarianceMatrix or PrecisionOf", v.name)
		return v
	}
	b.factor(f)
	return v
}

// NormalDot adds the factor N(v | cᵀw + offset, 1/precision) over the
// normal variable v, with w an mvnormal variable and c a literal vector
// of its length (a regression on a weight vector), and returns v. The
// offset is Num(x) or Of(a normal variable), the precision Num(x) or
// Of(a gamma variable).
func (v Var) NormalDot(w Var, c []float64, offset, precision Param) Var {
	b := v.builder()
	if !b.want(v.name, "out", v, "normal") || !b.want(v.name, "dot.of", w, "mvnormal") {
		return v
	}
	if !b.checkParam(v.name, "mean offset", offset, "normal") || !b.checkParam(v.name, "precision", precision, "gamma") {
		return v
	}
	nm := &NormalMean{Mv: &MvMeanSpec{DotOf: w.name, DotWith: append([]float64(nil), c...)}}
	if offset.isVar {
		nm.OffsetVar = offset.v.name
	} else {
		x := offset.x
		nm.Offset = &x
	}
	f := FactorSpec{Node: "normal", Out: v.name, Mean: nm}
	precision.setPrecision(&f)
	b.factor(f)
	return v
}

// Bernoulli adds the factor Ber(v | p) over the categorical variable v of
// two outcomes (index 1 is success), p = Num(x) or Of(a beta variable),
// and returns v.
func (v Var) Bernoulli(p Param) Var {
	b := v.builder()
	if b.err != nil {
		return v
	}
	if f := b.family(v); f != "categorical" {
		b.fail("variable %q is %s, want categorical (a bernoulli node's output)", v.name, f)
		return v
	}
	f := FactorSpec{Node: "bernoulli", Out: v.name}
	if p.isVar {
		if !b.want(v.name, "p", p.v, "beta") {
			return v
		}
		f.P = &Value{Var: p.v.name}
	} else {
		f.P = &Value{Tensor: &Tensor{Data: []float64{p.x}}}
	}
	b.factor(f)
	return v
}
