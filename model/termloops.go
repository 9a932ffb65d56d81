package model

import (
	"fmt"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
)

// The terms of a linear predictor in a file with a scope (docs/formats.md,
// "Sizes, arrays and loops"): a term may carry its own loops,
// {"for": {"k": "0..K-1"}, "of": "w[k]", "scale": "X[n,k]"}, one term per
// value of k, and its scale may be a constant's element. Each term is
// compiled once with its factor (its loops by newScope, after the
// factor's: their indices take the slots after the factor's); per value
// of the factor's loops, prepare expands the terms into the copy's sum,
// each resolved to its variable and its number, which readLinear takes as
// they are.

// pairLimit caps the pairs of terms of all the sums of a file with a scope
// once expanded: a sum of K terms makes a node of K(K+1)/2 products of
// its terms (nodes.NormalLinear), which a short file with loops could
// otherwise ask for by the billion. It is MaxElements, lowered by the fuzz
// tests.
var pairLimit int64 = MaxElements

// loopTerm is a term of a factor's sum, compiled.
type loopTerm struct {
	at     int         // its index in the file's sum
	levels []loopLevel // the factor's loops, then the term's
	from   int         // the first of the term's loops in levels
	of     *ref        // a scalar variable or an array's element
	scale  *ref        // a constant's element; nil for the number x
	x      float64
}

// compileTerms compiles the terms of the sum of file factor i, if its mean
// is one; field names the factor with its node.
func (lf *loopFactor) compileTerms(i int, field string) error {
	m := lf.fs.Mean
	if !m.sum.set {
		return nil
	}
	sc := lf.sc
	lf.terms = make([]loopTerm, len(m.sum.terms))
	depth := len(lf.levels)
	for j, t := range m.sum.terms {
		sub := fmt.Sprintf("%s.mean.sum[%d]", field, j)
		fail := func(s, format string, args ...any) error {
			return &Error{File: sc.file, Field: sub + s, Err: fmt.Errorf(format, args...)}
		}
		lt := &lf.terms[j]
		lt.at, lt.levels, lt.from, lt.x = j, lf.levels, len(lf.levels), 1
		if own := sc.terms[i]; own != nil && own[j] != nil {
			lt.levels = append(append([]loopLevel(nil), lf.levels...), own[j]...)
		}
		depth = max(depth, len(lt.levels))
		nm := names{sizes: sc.names.sizes, sizeOrd: sc.names.sizeOrd}
		for _, l := range lt.levels {
			nm.indices = append(nm.indices, l.index)
		}
		if t.of == "" {
			return fail(".of", "missing")
		}
		r, err := sc.compileRef(lf.g, t.of, &nm)
		if err != nil {
			return fail(".of", "%v", err)
		}
		switch r.kind {
		case refConst:
			return fail(".of", "%q is a data constant, want a variable", shorten(t.of))
		case refUnknown:
			return fail(".of", "unknown variable %q", shorten(t.of))
		}
		lt.of = r
		switch {
		case t.scale.name != nil:
			text := *t.scale.name
			r, err := sc.compileRef(lf.g, text, &nm)
			if err != nil {
				return fail(".scale", "%v", err)
			}
			if r.kind != refConst {
				return fail(".scale", `%q is not a data constant: a term's scale is a number or a constant's element, such as "X[n,k]"`, shorten(text))
			}
			if len(r.idx) < len(r.con.shape) {
				return fail(".scale", "%q is a part of a constant, of shape %v: want a number (an element)", shorten(text), r.con.shape[len(r.idx):])
			}
			lt.scale = r
		case t.scale.set:
			x, err := t.scale.scalar(sub + ".scale")
			if err != nil {
				return &Error{File: sc.file, Err: err}
			}
			if err := checkMean(x); err != nil {
				return fail(".scale", "%v", err)
			}
			lt.x = x
		}
	}
	lf.tvals = make([]int64, depth)
	return nil
}

// expandTerms puts the terms at the loop values into the copy's sum: one
// per value of each term's loops, resolved. field names the factor with
// its node.
func (lf *loopFactor) expandTerms(field string) error {
	buf := lf.termBuf[:0]
	for j := range lf.terms {
		lt := &lf.terms[j]
		vals := lf.tvals[:len(lt.levels)]
		copy(vals, lf.vals)
		sub := func(s string) string { return fmt.Sprintf("%s.mean.sum[%d]%s", field, lt.at, s) }
		one := func() error {
			v, err := lf.termVariable(lt, vals)
			if err != nil {
				return &Error{Field: sub(".of"), Err: err}
			}
			x := lt.x
			if lt.scale != nil {
				k, err := lf.atIn(lt.scale, lt.levels, vals)
				if err != nil {
					return &Error{Field: sub(".scale"), Err: err}
				}
				x = lt.scale.con.data[k]
				if err := checkMean(x); err != nil {
					at := shorten(lt.scale.text)
					if len(lt.levels) > 0 {
						at += " with " + loopValues(lt.levels, vals)
					}
					return &Error{Field: sub(".scale"), Err: fmt.Errorf("%s: %v", at, err)}
				}
			}
			buf = append(buf, jsonTerm{at: lt.at, of: lt.of.text, resolved: true, v: v, x: x})
			return nil
		}
		var err error
		if lt.from == len(lt.levels) {
			err = one()
		} else {
			err = walkFrom(lt.levels, vals, lt.from, sub(".for"), one)
		}
		if err != nil {
			lf.termBuf = buf
			return err
		}
	}
	lf.termBuf = buf
	k := int64(len(buf))
	if lf.sc.pairs = satAdd(lf.sc.pairs, satMul(k, k+1)/2); lf.sc.pairs > pairLimit {
		at := ""
		if len(lf.levels) > 0 {
			at = " with " + loopValues(lf.levels, lf.vals)
		}
		return &Error{Field: field + ".mean.sum", Err: fmt.Errorf("%s terms%s: the model's sums so far would make %s products of two terms (a sum of K terms makes K(K+1)/2), more than the limit of %s (model.MaxElements)", thousands(k), at, thousands(lf.sc.pairs), thousands(pairLimit))}
	}
	lf.cur.Mean.sum = jsonSum{set: true, terms: buf}
	return nil
}

// termVariable returns the normal variable of term lt at the loop values
// vals.
func (lf *loopFactor) termVariable(lt *loopTerm, vals []int64) (*ffg.Variable, error) {
	r := lt.of
	v := r.v
	if r.kind == refElem {
		k, err := lf.atIn(r, lt.levels, vals)
		if err != nil {
			return nil, err
		}
		v = r.arr.vars[k]
	}
	if v.Family() == expfam.NormalFamily {
		return v, nil
	}
	switch {
	case r.kind == refElem && len(lt.levels) > 0:
		return nil, fmt.Errorf("%s with %s: variable %q is %s, want normal", shorten(r.text), loopValues(lt.levels, vals), v.Name(), v.Family())
	case len(lf.levels) > 0:
		return nil, fmt.Errorf("variable %q is %s, want normal (with %s)", v.Name(), v.Family(), loopValues(lf.levels, lf.vals))
	}
	return nil, fmt.Errorf("variable %q is %s, want normal", v.Name(), v.Family())
}
