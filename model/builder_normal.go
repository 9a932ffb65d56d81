package model

import (
	"fmt"
	"math"
	"strings"

	"github.com/arbor-ai/arbor/expfam"
)

// Param is a mean or a precision of a normal node in the Builder: a number
// (Num), a variable (Of) or, for a mean, an affine function of a normal
// variable (Affine) or a linear predictor over normal variables (Linear).
type Param struct {
	v             Var
	x             float64
	scale, offset float64
	isVar, affine bool
	linear        bool
	terms         []Term
	off           *Param // the offset of a linear predictor
}

// setPrecision sets the precision of a normal factor's spec f to p: a
// gamma variable's name or a number.
func (p Param) setPrecision(f *FactorSpec) {
	if p.isVar {
		f.Precision = p.v.name
		return
	}
	x := p.x
	f.PrecisionValue = &x
}

// Term is one term s·v of a linear predictor (Linear): a normal variable
// times a number; v.Times(s) makes it.
type Term struct {
	v Var
	s float64
}

// Times is the term s·v of a linear predictor (Linear): the normal
// variable v, a weight of a regression, times the number s, its covariate.
func (v Var) Times(s float64) Term { return Term{v: v, s: s} }

// Linear is the mean Σ_k s_k·v_k + offset of a normal node, a linear
// predictor over the normal variables v_k with numeric scales s_k (the
// terms, v.Times(s)); the offset is a number (Num), a normal variable (Of)
// or an affine function of one (Affine). An observation of a linear
// regression with weights w, covariates x, intercept b and noise
// precision τ is
//
//	y.ObserveValue(y_n).NormalFrom(model.Linear(model.Of(b), w0.Times(x_n0), w1.Times(x_n1)), model.Of(tau))
//
// In the file it is the mean {"sum": [{"of": "w0", "scale": x_n0}, ...],
// "offset": "b"} (docs/models.md, "A linear regression"). With the weights
// an array (NormalArray), a Go loop over k builds the terms, as a term
// with loops does in a file ({"for": {"k": "0..K-1"}, "of": "w[k]",
// "scale": "X[n,k]"}); the Builder writes each sum out:
//
//	for k := range K {
//		terms[k] = w.At(k).Times(X[n][k])
//	}
//	y.At(n).NormalFrom(model.Linear(model.Of(b), terms...), model.Of(tau))
func Linear(offset Param, terms ...Term) Param {
	return Param{linear: true, terms: append([]Term(nil), terms...), off: &offset}
}

// Num is the parameter fixed at x.
func Num(x float64) Param { return Param{x: x} }

// Of is the parameter given by the variable v: a normal variable for a
// mean, a gamma variable for a precision.
func Of(v Var) Param { return Param{v: v, isVar: true, scale: 1} }

// Affine is the mean a·v + b of the normal variable v.
func Affine(v Var, a, b float64) Param {
	return Param{v: v, isVar: true, affine: true, scale: a, offset: b}
}

// Normal adds a normal (real-valued, univariate) variable.
func (b *Builder) Normal(name string) Var {
	return b.variable(name, "normal", nil)
}

// ObserveValue clamps the normal variable v to x, and returns v. A value
// that is not a finite number is a fault naming v.
func (v Var) ObserveValue(x float64) Var {
	b := v.builder()
	if err := expfam.ValidateValue(x); err != nil {
		b.fail("variable %q: observed %s", v.name, strings.TrimPrefix(trimPrefix(err), "normal: "))
		return v
	}
	b.setObserved(v, &Evidence{Index: -1, Value: &x})
	return v
}

// family returns the family of a variable of b ("" when unknown).
func (b *Builder) family(v Var) string {
	if i, ok := b.index[v.name]; ok && v.b == b {
		return b.spec.Variables[i].Family
	}
	return ""
}

// checkParam records a fault, naming the variable out, when p is not a
// valid mean (wantFamily "normal") or precision ("gamma").
func (b *Builder) checkParam(out, role string, p Param, wantFamily string) bool {
	if b.err != nil {
		return false
	}
	if p.linear {
		return b.checkLinear(out, role, p, wantFamily)
	}
	if p.isVar {
		if !b.own(fmt.Sprintf("variable %q: %s", out, role), p.v) {
			return false
		}
		if f := b.family(p.v); f != wantFamily {
			b.fail("variable %q: %s %q is %s, want %s", out, role, p.v.name, f, wantFamily)
			return false
		}
		if p.affine && wantFamily != "normal" {
			b.fail("variable %q: %s: an affine function is a mean, not a precision", out, role)
			return false
		}
		for _, x := range []float64{p.scale, p.offset} {
			if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > expfam.MaxNormalMagnitude {
				b.fail("variable %q: %s: scale and offset %v, %v, want finite numbers", out, role, p.scale, p.offset)
				return false
			}
		}
		return true
	}
	switch wantFamily {
	case "normal":
		if err := expfam.ValidateValue(p.x); err != nil {
			b.fail("variable %q: %s: %s", out, role, strings.TrimPrefix(trimPrefix(err), "normal: "))
			return false
		}
	default:
		if err := expfam.ValidatePrecision(p.x); err != nil {
			b.fail("variable %q: %s: %s", out, role, strings.TrimPrefix(trimPrefix(err), "normal: "))
			return false
		}
	}
	return true
}

// checkLinear is checkParam of a linear predictor.
func (b *Builder) checkLinear(out, role string, p Param, wantFamily string) bool {
	if wantFamily != "normal" {
		b.fail("variable %q: %s: a linear predictor is a mean, not a precision", out, role)
		return false
	}
	for k, t := range p.terms {
		sub := fmt.Sprintf("%s: sum[%d]", role, k)
		if !b.own(fmt.Sprintf("variable %q: %s", out, sub), t.v) {
			return false
		}
		if f := b.family(t.v); f != "normal" {
			b.fail("variable %q: %s: %q is %s, want normal", out, sub, t.v.name, f)
			return false
		}
		if err := expfam.ValidateValue(t.s); err != nil {
			b.fail("variable %q: %s scale: %s", out, sub, strings.TrimPrefix(trimPrefix(err), "normal: "))
			return false
		}
	}
	if p.off.linear {
		b.fail("variable %q: %s offset: a number, a normal variable or an affine function of one, not a linear predictor", out, role)
		return false
	}
	return b.checkParam(out, role+" offset", *p.off, "normal")
}

// linearSpecOf writes the linear predictor p as the file's mean; an affine
// offset a·v + c is the term a·v and the number c.
func linearSpecOf(p Param) *NormalMean {
	nm := &NormalMean{Sum: make([]SumTerm, 0, len(p.terms)+1)}
	for _, t := range p.terms {
		nm.Sum = append(nm.Sum, SumTerm{Of: t.v.name, Scale: &Operand{Value: t.s}})
	}
	switch off := *p.off; {
	case off.affine:
		nm.Sum = append(nm.Sum, SumTerm{Of: off.v.name, Scale: &Operand{Value: off.scale}})
		c := off.offset
		nm.Offset = &c
	case off.isVar:
		nm.OffsetVar = off.v.name
	default:
		c := off.x
		nm.Offset = &c
	}
	return nm
}

// NormalFrom adds P(v | mean, precision) = N(v; mean, 1/precision), the
// mean a number, a normal variable, an affine function of one or a linear
// predictor over several (Linear), the precision a number > 0 or a gamma
// variable, and returns v. With both numbers it is a Normal prior on v;
// with Affine(prev, a, b) and a number it is the linear-Gaussian
// transition v ~ N(a·prev + b, 1/τ); with Linear, an observation of a
// linear regression.
func (v Var) NormalFrom(mean, precision Param) Var {
	b := v.builder()
	if f := b.family(v); b.err == nil && f != "normal" {
		b.fail("variable %q is %s, want normal (a normal node's output)", v.name, f)
	}
	if !b.checkParam(v.name, "mean", mean, "normal") || !b.checkParam(v.name, "precision", precision, "gamma") {
		return v
	}
	f := FactorSpec{Node: "normal", Out: v.name}
	switch {
	case mean.linear:
		f.Mean = linearSpecOf(mean)
	case mean.affine:
		a, c := mean.scale, mean.offset
		f.Mean = &NormalMean{Var: mean.v.name, Scale: &a, Offset: &c}
	case mean.isVar:
		f.Mean = &NormalMean{Var: mean.v.name}
	default:
		f.Mean = &NormalMean{Value: mean.x}
	}
	precision.setPrecision(&f)
	b.factor(f)
	return v
}

// MixtureFrom adds the switching Normal P(v | z, m, τ) = N(v; m_z, 1/τ_z)
// with z a categorical variable of K states and K means (numbers or normal
// variables) and K precisions (numbers > 0 or gamma variables), and
// returns v. Lists of another length are a fault naming v.
func (v Var) MixtureFrom(z Var, means, precisions []Param) Var {
	b := v.builder()
	if b.err != nil || !b.own(fmt.Sprintf("variable %q: switch", v.name), z) {
		return v
	}
	if f := b.family(v); f != "normal" {
		b.fail("variable %q is %s, want normal (a mixture's output)", v.name, f)
		return v
	}
	if f := b.family(z); f != "categorical" {
		b.fail("variable %q: switch %q is %s, want categorical", v.name, z.name, f)
		return v
	}
	k := b.spec.Variables[b.index[z.name]].Shape[0]
	if len(means) != k || len(precisions) != k {
		b.fail("variable %q: %d means and %d precisions, want %d of each (the states of the switch %q)", v.name, len(means), len(precisions), k, z.name)
		return v
	}
	f := FactorSpec{Node: "normal-mixture", Out: v.name, Switch: z.name,
		Means: make([]Operand, k), Precisions: make([]Operand, k)}
	for j := range k {
		if means[j].affine || means[j].linear {
			b.fail("variable %q: means[%d]: a mixture mean is a number or a variable (no scale or offset)", v.name, j)
			return v
		}
		if !b.checkParam(v.name, fmt.Sprintf("means[%d]", j), means[j], "normal") ||
			!b.checkParam(v.name, fmt.Sprintf("precisions[%d]", j), precisions[j], "gamma") {
			return v
		}
		f.Means[j] = Operand{Var: means[j].v.name, Value: means[j].x}
		f.Precisions[j] = Operand{Var: precisions[j].v.name, Value: precisions[j].x}
	}
	b.factor(f)
	return v
}
