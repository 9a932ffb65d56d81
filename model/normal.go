package model

import (
	"fmt"
	"math"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
)

// checkMean refuses a number a normal mean cannot carry (a mean, a scale,
// an offset).
func checkMean(x float64) error {
	if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > expfam.MaxNormalMagnitude {
		return fmt.Errorf("%v, want a finite number of size at most %g", x, expfam.MaxNormalMagnitude)
	}
	return nil
}

// typedLookup returns the function that looks a variable up (field sub)
// and checks its family, for the builders of a factor's node.
func typedLookup(lookup func(sub, name string) (*ffg.Variable, error),
	fail func(sub, format string, args ...any) error) func(sub, name string, fam expfam.Family) (*ffg.Variable, error) {
	return func(sub, name string, fam expfam.Family) (*ffg.Variable, error) {
		v, err := lookup(sub, name)
		if err != nil {
			return nil, err
		}
		if v.Family() != fam {
			return nil, fail(sub, "variable %q is %s, want %s", name, v.Family(), fam)
		}
		return v, nil
	}
}

// normalFactor builds the continuous nodes of a model file: "normal"
// (out, mean, precision) and "normal-mixture" (out, switch, means,
// precisions). It returns the node and the variables bound after out, in
// the node's interface order: for "normal" appended to dst (the caller's
// buffer, which holds out), for "normal-mixture" in a slice of their own.
func normalFactor(fs factorSpec, field string, out *ffg.Variable, dst []*ffg.Variable,
	lookup func(sub, name string) (*ffg.Variable, error),
	fail func(sub, format string, args ...any) error, cache *normalCache) (ffg.Factor, []*ffg.Variable, error) {
	if out.Family() != expfam.NormalFamily {
		return nil, nil, fail("out", "variable %q is %s, want normal", fs.Out, out.Family())
	}
	typed := typedLookup(lookup, fail)
	number := func(sub string, v jsonValue) (float64, error) {
		if t := v.t; t != nil && t.Fault == nil && t.Depth == 0 && len(t.Data) == 1 {
			return t.Data[0], nil // a number (the field's name is made only for an error)
		}
		x, err := v.scalar(field + "." + sub)
		if err != nil {
			return 0, &Error{Err: err}
		}
		return x, nil
	}
	// operand reads a mean or a precision: a variable of family fam, or a
	// number checked by check.
	operand := func(sub string, v jsonValue, fam expfam.Family, check func(float64) error) (*ffg.Variable, float64, error) {
		if name, ok := v.varName(); ok {
			w, err := typed(sub, name, fam)
			return w, 0, err
		}
		x, err := number(sub, v)
		if err != nil {
			return nil, 0, err
		}
		if err := check(x); err != nil {
			return nil, 0, fail(sub, "%v", err)
		}
		return nil, x, nil
	}
	checkPrecision := func(x float64) error {
		if !(x > 0) || math.IsInf(x, 0) || x < 1/expfam.MaxNormalMagnitude || x > expfam.MaxNormalMagnitude {
			return fmt.Errorf("%v, want a finite number > 0 (a precision, 1/variance, in [%g, %g])", x, 1/expfam.MaxNormalMagnitude, expfam.MaxNormalMagnitude)
		}
		return nil
	}
	precisionOf := func(sub string, name string, num jsonValue) (nodes.Precision, *ffg.Variable, error) {
		if name != "" {
			w, err := typed(sub, name, expfam.GammaFamily)
			return nodes.VariablePrecision(), w, err
		}
		_, x, err := operand(sub, num, expfam.GammaFamily, checkPrecision)
		return nodes.LiteralPrecision(x), nil, err
	}
	if fs.Node == "normal" {
		vars := dst
		if !fs.Mean.set {
			return nil, nil, fail("mean", "missing")
		}
		var mean nodes.Mean
		var lin *linearMean
		var dotWith []float64
		switch {
		case fs.Mean.matrix.set:
			return nil, nil, fail("mean.matrix", "a normal's mean takes no matrix (an mvnormal node's does)")
		case fs.Mean.dot != nil:
			with, off, dv, err := dotMean(fs.Mean, field, typed, fail)
			if err != nil {
				return nil, nil, err
			}
			dotWith, mean, vars = with, off, append(vars, dv...)
		case fs.Mean.isLinear():
			var err error
			if lin, err = readLinear(fs.Mean, typed, number, checkMean, fail); err != nil {
				return nil, nil, err
			}
			vars = append(vars, lin.vars...)
		case fs.Mean.obj:
			if fs.Mean.of == "" {
				return nil, nil, fail("mean.of", "missing (the normal variable the mean is an affine function of)")
			}
			m, err := typed("mean.of", fs.Mean.of, expfam.NormalFamily)
			if err != nil {
				return nil, nil, err
			}
			a, b := 1.0, 0.0
			if fs.Mean.scale.set {
				if a, err = number("mean.scale", fs.Mean.scale); err != nil {
					return nil, nil, err
				}
				if err := checkMean(a); err != nil {
					return nil, nil, fail("mean.scale", "%v", err)
				}
			}
			if fs.Mean.offset.set {
				if b, err = number("mean.offset", fs.Mean.offset); err != nil {
					return nil, nil, err
				}
				if err := checkMean(b); err != nil {
					return nil, nil, fail("mean.offset", "%v", err)
				}
			}
			mean = nodes.AffineMean(a, b)
			vars = append(vars, m)
		default:
			m, x, err := operand("mean", fs.Mean.v, expfam.NormalFamily, checkMean)
			if err != nil {
				return nil, nil, err
			}
			if m != nil {
				mean = nodes.VariableMean()
				vars = append(vars, m)
			} else {
				mean = nodes.LiteralMean(x)
			}
		}
		if fs.Precision == "" && !fs.PrecisionNum.set {
			return nil, nil, fail("precision", "missing")
		}
		prec, pv, err := precisionOf("precision", fs.Precision, fs.PrecisionNum)
		if err != nil {
			return nil, nil, err
		}
		if pv != nil {
			vars = append(vars, pv)
		}
		if dotWith != nil {
			n, err := nodes.NewNormalDot(dotWith, mean, prec)
			if err != nil {
				return nil, nil, fail("", "%v", trimPrefix(err))
			}
			return n, vars, nil
		}
		if lin != nil {
			n, err := nodes.NewNormalLinear(lin.scales, lin.offset, prec)
			if err != nil {
				return nil, nil, fail("", "%v", trimPrefix(err))
			}
			return n, vars, nil
		}
		if n := cache.get(mean, prec); n != nil {
			return n, vars, nil
		}
		n, err := nodes.NewNormal(mean, prec)
		if err != nil {
			return nil, nil, fail("", "%v", trimPrefix(err))
		}
		cache.put(mean, prec, n)
		return n, vars, nil
	}
	// normal-mixture
	if fs.Switch == "" {
		return nil, nil, fail("switch", "missing")
	}
	z, err := typed("switch", fs.Switch, expfam.CategoricalFamily)
	if err != nil {
		return nil, nil, err
	}
	k := z.Shape()[0]
	for _, l := range []struct {
		sub  string
		list jsonList
	}{{"means", fs.Means}, {"precisions", fs.Precisions}} {
		if !l.list.set {
			return nil, nil, fail(l.sub, "missing")
		}
		if len(l.list.items) != k {
			return nil, nil, fail(l.sub, "%d entries, want %d (one per state of the switch %q)", len(l.list.items), k, fs.Switch)
		}
	}
	means := make([]nodes.Mean, k)
	precs := make([]nodes.Precision, k)
	// A variable named by several components is bound once (a tied
	// precision, a shared mean): number the distinct variables.
	var meanVars, precVars []*ffg.Variable
	meanNum, precNum := make([]int, k), make([]int, k)
	numberVar := func(vars *[]*ffg.Variable, v *ffg.Variable) int {
		for i, w := range *vars {
			if w == v {
				return i
			}
		}
		*vars = append(*vars, v)
		return len(*vars) - 1
	}
	for j := range k {
		sub := fmt.Sprintf("means[%d]", j)
		m, x, err := operand(sub, fs.Means.items[j], expfam.NormalFamily, checkMean)
		if err != nil {
			return nil, nil, err
		}
		if m != nil {
			means[j] = nodes.VariableMean()
			meanNum[j] = numberVar(&meanVars, m)
		} else {
			means[j] = nodes.LiteralMean(x)
		}
		sub = fmt.Sprintf("precisions[%d]", j)
		name, _ := fs.Precisions.items[j].varName()
		p, pv, err := precisionOf(sub, name, fs.Precisions.items[j])
		if err != nil {
			return nil, nil, err
		}
		precs[j] = p
		if pv != nil {
			precNum[j] = numberVar(&precVars, pv)
		}
	}
	for _, v := range meanVars {
		for _, w := range precVars {
			if v == w {
				return nil, nil, fail("precisions", "variable %q is also a mean", v.Name())
			}
		}
	}
	mix, err := nodes.NewNormalMixtureShared(means, meanNum, precs, precNum)
	if err != nil {
		return nil, nil, fail("", "%v", trimPrefix(err))
	}
	return mix, append(append([]*ffg.Variable{z}, meanVars...), precVars...), nil
}

// normalCache keeps the last Normal nodes a build made: a node is
// read-only once built (its form included), so factors whose mean and
// precision are the same share one node instead of building a form each:
// the factors of a loop, and the factors of a written-out file, which
// alternate between a few kinds (a transition, an observation). A nil
// cache keeps nothing.
type normalCache struct {
	entries [2]normalEntry
	next    int // the entry the next put replaces

	vars []*ffg.Variable // buildFactor's buffer of a factor's variables, which AddFactor copies
}

type normalEntry struct {
	mean nodes.Mean
	prec nodes.Precision
	node *nodes.Normal
}

func (c *normalCache) get(mean nodes.Mean, prec nodes.Precision) *nodes.Normal {
	if c == nil {
		return nil
	}
	for i := range c.entries {
		if e := &c.entries[i]; e.node != nil && e.mean == mean && e.prec == prec {
			return e.node
		}
	}
	return nil
}

func (c *normalCache) put(mean nodes.Mean, prec nodes.Precision, n *nodes.Normal) {
	if c != nil {
		c.entries[c.next] = normalEntry{mean: mean, prec: prec, node: n}
		c.next = (c.next + 1) % len(c.entries)
	}
}
