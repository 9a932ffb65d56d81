package nodes_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/nodes"
	"github.com/arbor-ai/arbor/nodes/nodetest"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmat"
	"gonum.org/v1/gonum/stat/distmv"
	"gonum.org/v1/gonum/stat/distuv"
)

// randSPD returns B Bᵀ + d·I for a random B.
func randSPD(rng *rand.Rand, d int) []float64 {
	b := make([]float64, d*d)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	a := make([]float64, d*d)
	for i := range d {
		for j := range d {
			for k := range d {
				a[i*d+j] += b[i*d+k] * b[j*d+k]
			}
		}
		a[i*d+i] += float64(d)
	}
	return a
}

func randVec(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 2 * rng.NormFloat64()
	}
	return v
}

// randMvStats returns the expected statistics of random posteriors of
// every family a multivariate node binds.
func randMvStats(rng *rand.Rand, f nodetest.Factor) [][]float64 {
	out := randStats(rng, f)
	var all [][]float64
	j := 0
	for _, it := range f.Interfaces() {
		switch it.Family {
		case expfam.MvNormalFamily:
			d := it.Shape[0]
			all = append(all, expfam.MvNormal{Mean: randVec(rng, d), Cov: randSPD(rng, d)}.ExpectedStats(nil))
		case expfam.WishartFamily:
			d := it.Shape[0]
			all = append(all, expfam.Wishart{DF: float64(d) + 2*rng.Float64(), Scale: randSPD(rng, d)}.ExpectedStats(nil))
		case expfam.BetaFamily:
			all = append(all, expfam.Beta{A: 0.5 + 3*rng.Float64(), B: 0.5 + 3*rng.Float64()}.ExpectedStats(nil))
		default:
			all = append(all, out[j])
			j++
		}
	}
	return all
}

func mvNodes(t *testing.T) []nodetest.Factor {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 12))
	var fs []nodetest.Factor
	add := func(f nodetest.Factor, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	const d = 3
	a := []float64{1, 0.5, 0, 1, -0.3, 2} // 3×2
	for _, mean := range []nodes.MvMean{
		nodes.LiteralMvMean([]float64{0.5, -1, 2}),
		nodes.VariableMvMean(),
		nodes.AffineMvMean(a, 2, []float64{0.1, 0, -0.7}),
		nodes.AffineMvMean(a, 2, nil),
	} {
		for _, prec := range []nodes.MvPrecision{nodes.LiteralMvPrecision(randSPD(rng, d)), nodes.WishartPrecision()} {
			add(nodes.NewMvNormal(d, mean, prec))
		}
	}
	add(nodes.NewWishart(4.5, randSPD(rng, d), d))
	for _, off := range []nodes.Mean{nodes.LiteralMean(0.4), nodes.VariableMean()} {
		for _, prec := range []nodes.Precision{nodes.LiteralPrecision(2), nodes.VariablePrecision(), nodes.ScaledPrecision(0.5)} {
			add(nodes.NewNormalDot([]float64{1, -2, 0.5}, off, prec))
		}
	}
	add(nodes.NewBeta(2, 3.5))
	add(nodes.NewBernoulli(0.3))
	fs = append(fs, nodes.NewBernoulliBeta())
	return fs
}

// Every message of every multivariate, Wishart, Beta and Bernoulli node
// form is the finite-difference gradient of its E_q[ln f].
func TestMvMessagesAreGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, f := range mvNodes(t) {
		for range 3 {
			if err := nodetest.CheckMessages(f, randMvStats(rng, f), 1e-5, 1e-7); err != nil {
				t.Errorf("%s %v: %v", f.Kind(), f.Interfaces(), err)
			}
		}
	}
}

// At a point (every neighbour's statistics T(x)), E_q[ln f] is ln f
// itself: the forms against gonum's densities.
func TestMvFormsAreLogDensities(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	const d = 3
	mu := []float64{0.5, -1, 2}
	prec := randSPD(rng, d)
	n, err := nodes.NewMvNormal(d, nodes.LiteralMvMean(mu), nodes.LiteralMvPrecision(prec))
	if err != nil {
		t.Fatal(err)
	}
	x := randVec(rng, d)
	tx := point(x)
	var cov mat.SymDense
	var ch mat.Cholesky
	ch.Factorize(mat.NewSymDense(d, append([]float64(nil), prec...)))
	if err := ch.InverseTo(&cov); err != nil {
		t.Fatal(err)
	}
	ref, _ := distmv.NewNormal(mu, &cov, nil)
	near(t, "mvnormal ln f", -n.AverageEnergy([][]float64{tx}), ref.LogProb(x), 1e-10)

	// The transition N(x | A m + b, Λ⁻¹) with Λ a Wishart variable at a
	// point Λ: ln N(x; A m + b, Λ⁻¹).
	a := []float64{1, 0.5, 0, 1, -0.3, 2}
	b := []float64{0.1, 0, -0.7}
	tr, err := nodes.NewMvNormal(d, nodes.AffineMvMean(a, 2, b), nodes.WishartPrecision())
	if err != nil {
		t.Fatal(err)
	}
	m := []float64{0.3, -0.8}
	mean := make([]float64, d)
	for i := range d {
		mean[i] = a[2*i]*m[0] + a[2*i+1]*m[1] + b[i]
	}
	lamStats := append(append([]float64(nil), prec...), ch.LogDet())
	ref2, _ := distmv.NewNormal(mean, &cov, nil)
	near(t, "transition ln f", -tr.AverageEnergy([][]float64{tx, point(m), lamStats}), ref2.LogProb(x), 1e-10)

	// The Wishart prior at Λ.
	v := randSPD(rng, d)
	w, err := nodes.NewWishart(5, v, d)
	if err != nil {
		t.Fatal(err)
	}
	wref, _ := distmat.NewWishart(mat.NewSymDense(d, append([]float64(nil), v...)), 5, nil)
	near(t, "wishart ln f", -w.AverageEnergy([][]float64{lamStats}), wref.LogProbSym(mat.NewSymDense(d, append([]float64(nil), prec...))), 1e-10)

	// The dot-product Normal: ln N(y; cᵀw + b, 1/τ) at a point w.
	c := []float64{1, -2, 0.5}
	nd, err := nodes.NewNormalDot(c, nodes.LiteralMean(0.4), nodes.LiteralPrecision(2))
	if err != nil {
		t.Fatal(err)
	}
	wv := []float64{0.2, 0.7, -1}
	y := 1.3
	mu1 := 0.4 + c[0]*wv[0] + c[1]*wv[1] + c[2]*wv[2]
	near(t, "dot ln f", -nd.AverageEnergy([][]float64{{y, y * y}, point(wv)}), distuv.Normal{Mu: mu1, Sigma: math.Sqrt(0.5)}.LogProb(y), 1e-12)

	// Beta and Bernoulli.
	be, _ := nodes.NewBeta(2, 3.5)
	p := 0.3
	near(t, "beta ln f", -be.AverageEnergy([][]float64{{math.Log(p), math.Log1p(-p)}}), distuv.Beta{Alpha: 2, Beta: 3.5}.LogProb(p), 1e-9)
	bb := nodes.NewBernoulliBeta()
	near(t, "bernoulli ln f (success)", -bb.AverageEnergy([][]float64{{0, 1}, {math.Log(p), math.Log1p(-p)}}), math.Log(p), 1e-15)
	near(t, "bernoulli ln f (failure)", -bb.AverageEnergy([][]float64{{1, 0}, {math.Log(p), math.Log1p(-p)}}), math.Log1p(-p), 1e-15)
}

// point returns T(x) = [x, x xᵀ] of an mvnormal variable at x.
func point(x []float64) []float64 {
	d := len(x)
	out := append([]float64(nil), x...)
	for i := range d {
		for j := range d {
			out = append(out, x[i]*x[j])
		}
	}
	return out
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %.15g, want %.15g", what, got, want)
	}
}

// Bad parameters are errors naming the field, never panics.
func TestMvNodeErrors(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{second(nodes.NewMvNormal(2, nodes.LiteralMvMean([]float64{1}), nodes.LiteralMvPrecision([]float64{1, 0, 0, 1}))), "mean has 1 entries, want 2"},
		{second(nodes.NewMvNormal(2, nodes.LiteralMvMean([]float64{1, 2}), nodes.LiteralMvPrecision([]float64{1, 2, 2, 1}))), "precision: not positive definite"},
		{second(nodes.NewMvNormal(2, nodes.LiteralMvMean([]float64{1, 2}), nodes.LiteralMvPrecision([]float64{1, 0.5, 0, 1}))), "precision: not symmetric"},
		{second(nodes.NewMvNormal(2, nodes.AffineMvMean([]float64{1, 2, 3}, 2, nil), nodes.WishartPrecision())), "mean matrix has 3 entries"},
		{second(nodes.NewMvNormal(2, nodes.AffineMvMean([]float64{1, 0, 0, 1}, 2, []float64{1}), nodes.WishartPrecision())), "mean offset has 1 entries"},
		{second(nodes.NewWishart(0.5, []float64{1, 0, 0, 1}, 2)), "df: degrees of freedom 0.5"},
		{second(nodes.NewWishart(3, []float64{1, 0, 0, -1}, 2)), "scale: not positive definite"},
		{second(nodes.NewNormalDot(nil, nodes.LiteralMean(0), nodes.LiteralPrecision(1))), "dot with a vector of 0 entries"},
		{second(nodes.NewBeta(-1, 1)), "a is -1"},
		{second(nodes.NewBernoulli(1)), "p is 1"},
		{second(nodes.MvCovariance([]float64{1, 0, 0, 0}, 2)), "covariance: not positive definite"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("error %v, want it to contain %q", c.err, c.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// LogDensityAt (the residual form) equals the polynomial form's E_q[ln f]
// with the point neighbours at T(x), for every form of the node.
func TestMvLogDensityAtEqualsForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for _, f := range mvNodes(t) {
		n, ok := f.(*nodes.MvNormal)
		if !ok {
			continue
		}
		for _, pointMask := range []int{0, 1, 2, 3} {
			stats := randMvStats(rng, n)
			points := make([][]float64, len(stats))
			for k, it := range n.Interfaces() {
				if it.Family == expfam.MvNormalFamily && pointMask&(1<<k) != 0 {
					points[k] = randVec(rng, it.Shape[0])
					stats[k] = point(points[k])
				}
			}
			near(t, "LogDensityAt", n.LogDensityAt(points, stats), -n.AverageEnergy(stats), 1e-10)
		}
	}
}

// The figure labels: N(μ, Σ), W(ν, V), Beta(a, b), Ber(p), N(cᵀw+b, τ⁻¹).
func TestMvLabels(t *testing.T) {
	tr, _ := nodes.NewMvNormal(2, nodes.AffineMvMean([]float64{1, 1, 0, 1}, 2, nil), nodes.WishartPrecision())
	w, _ := nodes.NewWishart(3, []float64{1, 0, 0, 1}, 2)
	be, _ := nodes.NewBeta(2, 3)
	lit, _ := nodes.NewBernoulli(0.25)
	dot, _ := nodes.NewNormalDot([]float64{1, 2}, nodes.VariableMean(), nodes.VariablePrecision())
	for _, c := range []struct{ got, want string }{
		{tr.Label(), "N(μ, Σ)"},
		{tr.LabelWith([]string{"x1", "x0", "W"}), "N(A·x0, W⁻¹)"},
		{w.LabelWith([]string{"W"}), "W(3, V)"},
		{be.LabelWith([]string{"p"}), "Beta(2, 3)"},
		{nodes.NewBernoulliBeta().LabelWith([]string{"c", "p"}), "Ber(p)"},
		{lit.LabelWith([]string{"c"}), "Ber(0.25)"},
		{dot.LabelWith([]string{"y", "w", "b", "t"}), "N(cᵀw+b, t⁻¹)"},
	} {
		if c.got != c.want {
			t.Errorf("label %q, want %q", c.got, c.want)
		}
	}
}

// A form too large to build is an error, not an exhausted memory: a dense
// 64×64 transition matrix with a Wishart precision expands to 65²·64²
// products.
func TestMvFormTooLarge(t *testing.T) {
	const d = 64
	a := make([]float64, d*d)
	for i := range a {
		a[i] = 0.01
	}
	_, err := nodes.NewMvNormal(d, nodes.AffineMvMean(a, d, nil), nodes.WishartPrecision())
	if err == nil || !strings.Contains(err.Error(), "more than 2000000") {
		t.Errorf("got %v", err)
	}
}
