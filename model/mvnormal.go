package model

import (
	"fmt"
	"math"
	"sync"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/internal/jsonread"
	"github.com/arbor-ai/arbor/nodes"
)

// The multivariate part of model files (docs/models.md, docs/formats.md):
// the families mvnormal and wishart (with "dim") and beta, the nodes
// mvnormal, wishart, beta and bernoulli, and the normal node's mean
// {"dot": {"of": W, "with": [...]}, "offset": b}.

func init() {
	used["mvnormal"] = []string{"name", "out", "mean", "precision", "covariance"}
	used["wishart"] = []string{"name", "out", "df", "scale"}
	used["beta"] = []string{"name", "out", "a", "b"}
	used["bernoulli"] = []string{"name", "out", "p"}
}

// jsonDot is a normal mean's "dot": {"of": VAR, "with": [c...]}.
type jsonDot struct {
	of   string
	with jsonValue
}

var dotFields = []string{"of", "with"}

// dot reads the object {"of": VAR, "with": VECTOR}.
func (d *decoder) dot(field string) (*jsonDot, error) {
	if d.null() {
		return nil, nil
	}
	if d.r.Peek() != '{' {
		return nil, d.fail(field, `want {"of": VAR, "with": [NUMBER, ...]}, got JSON %s`, d.r.Kind())
	}
	dt := &jsonDot{}
	err := d.object(field, dotFields, func(k int) error {
		var err error
		switch k {
		case 0:
			dt.of, err = d.str(field + ".of")
		case 1:
			dt.with = d.value()
		}
		return err
	})
	return dt, err
}

// mvSetFields appends the multivariate fields the factor sets to out.
func mvSetFields(fs factorSpec, out []string) []string {
	for _, f := range []struct {
		name string
		v    jsonValue
	}{{"df", fs.DF}, {"scale", fs.Scale}, {"a", fs.A}, {"b", fs.B}, {"covariance", fs.Covariance}} {
		if f.v.set {
			out = append(out, f.name)
		}
	}
	return out
}

// mvVariable checks the dimension of an mvnormal or wishart variable
// ("dim", a whole number in 1..expfam.MaxMvDim) and sets its shape to
// [dim]; a "dim" on another family is an error. A beta variable is
// scalar.
func mvVariable(vs *varSpec, fam expfam.Family, field string) error {
	fail := func(sub, format string, args ...any) error {
		return &Error{Field: field + sub, Err: fmt.Errorf(format, args...)}
	}
	multi := fam == expfam.MvNormalFamily || fam == expfam.WishartFamily
	if !multi {
		if vs.Dim.set {
			return fail(".dim", "only mvnormal and wishart variables have a dimension (%s variables: shape)", fam)
		}
		if fam == expfam.BetaFamily && len(vs.Shape) != 0 && !(len(vs.Shape) == 1 && vs.Shape[0] == 1) {
			return fail(".shape", "beta variables are scalar, got shape %v (omit it)", vs.Shape)
		}
		return nil
	}
	if len(vs.Shape) != 0 {
		return fail(".shape", `%s variables take "dim", not "shape"`, fam)
	}
	if !vs.Dim.set {
		return fail(".dim", "missing (the dimension d of the %s variable)", fam)
	}
	x, err := vs.Dim.scalar(field + ".dim")
	if err != nil {
		return &Error{Err: err}
	}
	if x != math.Trunc(x) || x < 1 || x > expfam.MaxMvDim {
		return fail(".dim", "%v, want a whole number in 1..%d", x, expfam.MaxMvDim)
	}
	vs.Shape = []int{int(x)}
	return nil
}

// observeVector observes an mvnormal variable at the vector t (a JSON
// array of d numbers); sub names the field in errors.
func observeVector(v *ffg.Variable, t *jsonread.Tensor, sub string) ([]float64, error) {
	vals, shape, err := tensorNumbers(t, sub)
	if err != nil {
		return nil, &Error{Err: err}
	}
	d := v.Shape()[0]
	if len(shape) != 1 || shape[0] != d {
		return nil, &Error{Field: sub, Err: fmt.Errorf("want an array of %d numbers (the mvnormal variable's value), got shape %v", d, shape)}
	}
	if err := v.ObserveVector(vals); err != nil {
		return nil, &Error{Field: sub, Err: fmt.Errorf("%s", trimPrefix(err))}
	}
	return append([]float64(nil), vals...), nil
}

// mvCache keeps the last nodes built from the literal tensors of a
// factor, so that the factors of one loop, which read the same tensors,
// share one node (a node is read-only; its form is expanded once).
var mvCache struct {
	sync.Mutex
	keys  [8]mvKey
	nodes [8]ffg.Factor
	next  int
}

type mvKey struct {
	t       [5]*jsonread.Tensor
	node    string
	d, k    int
	meanVar bool
	precVar bool
}

// lookupNode returns the cached node of key, or nil.
func lookupNode(key mvKey) ffg.Factor {
	mvCache.Lock()
	defer mvCache.Unlock()
	for i, k := range mvCache.keys {
		if k == key && mvCache.nodes[i] != nil {
			return mvCache.nodes[i]
		}
	}
	return nil
}

func cachedNode(key mvKey, build func() (ffg.Factor, error)) (ffg.Factor, error) {
	if n := lookupNode(key); n != nil {
		return n, nil
	}
	n, err := build()
	if err != nil {
		return nil, err
	}
	mvCache.Lock()
	mvCache.keys[mvCache.next], mvCache.nodes[mvCache.next] = key, n
	mvCache.next = (mvCache.next + 1) % len(mvCache.keys)
	mvCache.Unlock()
	return n, nil
}

// matrixOf reads a literal matrix of r×c numbers (a nested array).
func matrixOf(v jsonValue, sub string, r, c int) ([]float64, error) {
	if _, ok := v.varName(); ok {
		return nil, &Error{Field: sub, Err: fmt.Errorf("want a %d×%d matrix of numbers, got a name", r, c)}
	}
	vals, shape, err := v.numbers(sub)
	if err != nil {
		return nil, &Error{Err: err}
	}
	if len(shape) != 2 || shape[0] != r || shape[1] != c {
		return nil, &Error{Field: sub, Err: fmt.Errorf("want a %d×%d matrix (an array of %d arrays of %d numbers), got shape %v", r, c, r, c, shape)}
	}
	return vals, nil
}

// vectorOf reads a literal vector of n numbers.
func vectorOf(v jsonValue, sub string, n int) ([]float64, error) {
	vals, shape, err := v.numbers(sub)
	if err != nil {
		return nil, &Error{Err: err}
	}
	if len(shape) != 1 || (n >= 0 && shape[0] != n) {
		want := "an array of numbers"
		if n >= 0 {
			want = fmt.Sprintf("an array of %d numbers", n)
		}
		return nil, &Error{Field: sub, Err: fmt.Errorf("want %s, got shape %v", want, shape)}
	}
	return vals, nil
}

// mvFactor builds the nodes mvnormal, wishart, beta and bernoulli of a
// model file and returns the node and the variables bound after out: for
// mvnormal appended to dst (the caller's buffer, which holds out), for the
// others in a slice of their own.
func mvFactor(fs factorSpec, field string, out *ffg.Variable, dst []*ffg.Variable,
	lookup func(sub, name string) (*ffg.Variable, error),
	fail func(sub, format string, args ...any) error) (ffg.Factor, []*ffg.Variable, error) {
	want := expfam.CategoricalFamily // bernoulli
	switch fs.Node {
	case "mvnormal":
		want = expfam.MvNormalFamily
	case "wishart":
		want = expfam.WishartFamily
	case "beta":
		want = expfam.BetaFamily
	}
	if out.Family() != want {
		return nil, nil, fail("out", "variable %q is %s, want %s", fs.Out, out.Family(), want)
	}
	typed := typedLookup(lookup, fail)
	number := func(sub string, v jsonValue) (float64, error) {
		if !v.set {
			return 0, fail(sub, "missing")
		}
		x, err := v.scalar(field + "." + sub)
		if err != nil {
			return 0, &Error{Err: err}
		}
		return x, nil
	}
	wrap := func(err error) error { return fail("", "%s", trimPrefix(err)) }
	switch fs.Node {
	case "wishart":
		d := out.Shape()[0]
		df, err := number("df", fs.DF)
		if err != nil {
			return nil, nil, err
		}
		if !fs.Scale.set {
			return nil, nil, fail("scale", "missing")
		}
		scale, err := matrixOf(fs.Scale, field+".scale", d, d)
		if err != nil {
			return nil, nil, err
		}
		if err := expfam.CheckSPD(scale, d); err != nil {
			return nil, nil, fail("scale", "%v", err)
		}
		if !(df > float64(d-1)) || math.IsInf(df, 0) || df > expfam.MaxNormalMagnitude {
			return nil, nil, fail("df", "%v, want a finite number > d - 1 = %d (degrees of freedom)", df, d-1)
		}
		n, err := nodes.NewWishart(df, scale, d)
		if err != nil {
			return nil, nil, wrap(err)
		}
		return n, nil, nil
	case "beta":
		a, err := number("a", fs.A)
		if err != nil {
			return nil, nil, err
		}
		b, err := number("b", fs.B)
		if err != nil {
			return nil, nil, err
		}
		for _, p := range []struct {
			sub string
			x   float64
		}{{"a", a}, {"b", b}} {
			if !(p.x > 0) || math.IsInf(p.x, 0) {
				return nil, nil, fail(p.sub, "%v, want a finite number > 0", p.x)
			}
		}
		n, err := nodes.NewBeta(a, b)
		if err != nil {
			return nil, nil, wrap(err)
		}
		return n, nil, nil
	case "bernoulli":
		if out.Shape()[0] != 2 {
			return nil, nil, fail("out", "variable %q has %d outcomes, want 2 (index 1 is success)", fs.Out, out.Shape()[0])
		}
		if !fs.P.set {
			return nil, nil, fail("p", "missing")
		}
		if name, ok := fs.P.varName(); ok {
			pv, err := typed("p", name, expfam.BetaFamily)
			if err != nil {
				return nil, nil, err
			}
			return nodes.NewBernoulliBeta(), []*ffg.Variable{pv}, nil
		}
		// A number, or (as model.Value writes a literal) [number].
		vals, shape, err := fs.P.numbers(field + ".p")
		if err != nil {
			return nil, nil, &Error{Err: err}
		}
		if len(shape) > 1 || (len(shape) == 1 && shape[0] != 1) {
			return nil, nil, fail("p", "want a number (the probability of success) or a beta variable's name, got shape %v", shape)
		}
		p := vals[0]
		if !(p > 0 && p < 1) {
			return nil, nil, fail("p", "%v, want a number in (0, 1) (the probability of success)", p)
		}
		n, err := nodes.NewBernoulli(p)
		if err != nil {
			return nil, nil, wrap(err)
		}
		return n, nil, nil
	}
	return mvNormalFactor(fs, field, out, dst, typed, fail)
}

// mvNormalFactor builds the node mvnormal: "mean" a vector, an mvnormal
// variable's name or {"of": VAR, "matrix": A, "offset": b}; "precision" a
// matrix or a wishart variable's name, or "covariance" a matrix. The
// variables are looked up first; the literals are read and the node built
// only when the cache has no node of the same tensors (a loop's factors
// share one). The variables after out are appended to dst.
func mvNormalFactor(fs factorSpec, field string, out *ffg.Variable, dst []*ffg.Variable,
	typed func(sub, name string, fam expfam.Family) (*ffg.Variable, error),
	fail func(sub, format string, args ...any) error) (ffg.Factor, []*ffg.Variable, error) {
	d := out.Shape()[0]
	vars := dst // the variables after out, appended to dst
	key := mvKey{node: "mvnormal", d: d}
	m := fs.Mean
	meanName := ""
	switch {
	case !m.set:
		return nil, nil, fail("mean", "missing")
	case m.obj:
		if m.scale.set || m.sum.set || m.dot != nil {
			return nil, nil, fail("mean", `an mvnormal mean is a vector, a variable or {"of": VAR, "matrix": A, "offset": b} (no scale, sum or dot)`)
		}
		if m.of == "" {
			return nil, nil, fail("mean.of", "missing (the mvnormal variable of the mean A·x + b)")
		}
		meanName = m.of
		key.t[0], key.t[1] = m.matrix.t, m.offset.t
	default:
		if name, ok := m.v.varName(); ok {
			meanName = name
		} else {
			key.t[0] = m.v.t
		}
	}
	sub := "mean"
	if m.obj {
		sub = "mean.of"
	}
	if meanName != "" {
		mv, err := typed(sub, meanName, expfam.MvNormalFamily)
		if err != nil {
			return nil, nil, err
		}
		key.meanVar, key.k = true, mv.Shape()[0]
		if !m.matrix.set && key.k != d {
			hint := ""
			if m.obj {
				hint = fmt.Sprintf(` (or give a %d×%d "matrix")`, d, key.k)
			}
			return nil, nil, fail(sub, "variable %q has dimension %d, want %d%s", meanName, key.k, d, hint)
		}
		vars = append(vars, mv)
	}
	switch {
	case fs.Precision != "" && fs.Covariance.set, fs.PrecisionNum.set && fs.Covariance.set:
		return nil, nil, fail("covariance", "give a precision or a covariance, not both")
	case fs.Precision != "":
		w, err := typed("precision", fs.Precision, expfam.WishartFamily)
		if err != nil {
			return nil, nil, err
		}
		if w.Shape()[0] != d {
			return nil, nil, fail("precision", "variable %q has dimension %d, want %d", fs.Precision, w.Shape()[0], d)
		}
		vars = append(vars, w)
		key.precVar = true
	case fs.PrecisionNum.set:
		key.t[2] = fs.PrecisionNum.t
	case fs.Covariance.set:
		key.t[3] = fs.Covariance.t
	default:
		return nil, nil, fail("precision", `missing (a matrix, a wishart variable's name, or "covariance")`)
	}
	if n := lookupNode(key); n != nil {
		return n, vars, nil
	}
	n, err := cachedNode(key, func() (ffg.Factor, error) {
		mean, err := mvMeanOf(m, field, d, key)
		if err != nil {
			return nil, err
		}
		var prec nodes.MvPrecision
		switch {
		case key.precVar:
			prec = nodes.WishartPrecision()
		case key.t[2] != nil:
			l, err := matrixOf(fs.PrecisionNum, field+".precision", d, d)
			if err != nil {
				return nil, err
			}
			if err := expfam.CheckSPD(l, d); err != nil {
				return nil, fail("precision", "%v", err)
			}
			prec = nodes.LiteralMvPrecision(l)
		default:
			c, err := matrixOf(fs.Covariance, field+".covariance", d, d)
			if err != nil {
				return nil, err
			}
			if err := expfam.CheckSPD(c, d); err != nil {
				return nil, fail("covariance", "%v", err)
			}
			if prec, err = nodes.MvCovariance(c, d); err != nil {
				return nil, fail("covariance", "%s", trimPrefix(err))
			}
		}
		n, err := nodes.NewMvNormal(d, mean, prec)
		if err != nil {
			return nil, fail("", "%s", trimPrefix(err))
		}
		return n, nil
	})
	return n, vars, err
}

// mvMeanOf reads the literals of an mvnormal node's mean.
func mvMeanOf(m jsonMean, field string, d int, key mvKey) (nodes.MvMean, error) {
	if !key.meanVar {
		v, err := vectorOf(m.v, field+".mean", d)
		return nodes.LiteralMvMean(v), err
	}
	mean := nodes.VariableMvMean()
	if m.matrix.set {
		a, err := matrixOf(m.matrix, field+".mean.matrix", d, key.k)
		if err != nil {
			return mean, err
		}
		mean.Matrix, mean.In = a, key.k
	}
	if m.offset.set {
		b, err := vectorOf(m.offset, field+".mean.offset", d)
		if err != nil {
			return mean, err
		}
		mean.Offset = b
	}
	return mean, nil
}

// dotMean reads a normal's mean {"dot": {"of": W, "with": [c...]},
// "offset": b}: the dot product cᵀw with an mvnormal variable w plus a
// number or a normal variable b.
func dotMean(m jsonMean, field string,
	typed func(sub, name string, fam expfam.Family) (*ffg.Variable, error),
	fail func(sub, format string, args ...any) error) (with []float64, offset nodes.Mean, vars []*ffg.Variable, err error) {
	if m.of != "" || m.scale.set || m.sum.set || m.matrix.set {
		return nil, offset, nil, fail("mean", `a "dot" mean takes "offset" only besides it (no of, scale, sum or matrix)`)
	}
	if m.dot.of == "" {
		return nil, offset, nil, fail("mean.dot.of", "missing (the mvnormal variable w of cᵀw)")
	}
	w, err := typed("mean.dot.of", m.dot.of, expfam.MvNormalFamily)
	if err != nil {
		return nil, offset, nil, err
	}
	k := w.Shape()[0]
	if !m.dot.with.set {
		return nil, offset, nil, fail("mean.dot.with", "missing (the vector c of cᵀw)")
	}
	vals, shape, err := m.dot.with.numbers(field + ".mean.dot.with")
	if err != nil {
		return nil, offset, nil, &Error{Err: err}
	}
	if len(shape) != 1 || shape[0] != k {
		return nil, offset, nil, fail("mean.dot.with", "want an array of %d numbers (the length of %q), got shape %v", k, m.dot.of, shape)
	}
	if err := expfam.ValidateVector(vals); err != nil {
		return nil, offset, nil, fail("mean.dot.with", "%v", err)
	}
	vars = []*ffg.Variable{w}
	offset = nodes.LiteralMean(0)
	if m.offset.set {
		if name, ok := m.offset.varName(); ok {
			b, err := typed("mean.offset", name, expfam.NormalFamily)
			if err != nil {
				return nil, offset, nil, err
			}
			vars = append(vars, b)
			offset = nodes.VariableMean()
		} else {
			x, err := m.offset.scalar(field + ".mean.offset")
			if err != nil {
				return nil, offset, nil, &Error{Err: err}
			}
			if err := checkMean(x); err != nil {
				return nil, offset, nil, fail("mean.offset", "%v", err)
			}
			offset = nodes.LiteralMean(x)
		}
	}
	return vals, offset, vars, nil
}

// evidenceSize is the k of checkEvidence for v: its dimension for an
// mvnormal variable, the length of its statistics otherwise.
func evidenceSize(v *ffg.Variable) int {
	if v.Family() == expfam.MvNormalFamily {
		return v.Shape()[0]
	}
	return len(v.Stats())
}

// checkVectorEvidence checks ev as the value of an mvnormal variable of
// dimension d: an array of d finite numbers (in Probs).
func checkVectorEvidence(d int, ev Evidence) error {
	if ev.Probs == nil || len(ev.Probs) != d {
		return fmt.Errorf("want an array of %d numbers (the value of an mvnormal variable)", d)
	}
	if err := expfam.ValidateVector(ev.Probs); err != nil {
		return err
	}
	return nil
}
