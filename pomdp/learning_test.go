package pomdp

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/schedule"
)

func ptr(x float64) *float64 { return &x }

// jointAction is the joint action index whose per-factor controls are
// ctrl, found by decoding every index.
func jointAction(t *testing.T, m *Model, ctrl ...int) int {
	t.Helper()
	for u := range m.NumActions() {
		if slices.Equal(m.DecodeAction(nil, u), ctrl) {
			return u
		}
	}
	t.Fatalf("no joint action has controls %v", ctrl)
	return 0
}

func jointObs(t *testing.T, m *Model, outcomes ...int) int {
	t.Helper()
	o, err := m.EncodeObs(outcomes)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// secondLearned is a model with two factors and two modalities in which
// only the second modality's A and the second factor's B and D are learned:
//
//	factor x: 2 states, controls a, b; B and D given (fixed)
//	factor y: 2 states, controls p, q; concentrations b and d
//	modality m0 over x: 2 outcomes, A given
//	modality m1 over [y, x] (not the factors' order): 3 outcomes, a
//
// Every number is an arbitrary choice, only positive and, for the fixed
// parameters, with columns summing to 1.
func secondLearned(t *testing.T) *Model {
	t.Helper()
	m, err := NewFactorised(FactorisedSpec{
		Factors: []Factor{
			{Name: "x", NumStates: 2, Controls: []string{"a", "b"},
				B: []float64{0.9, 0.2, 0.1, 0.8, 0.3, 0.6, 0.7, 0.4},
				D: []float64{0.7, 0.3}},
			{Name: "y", NumStates: 2, Controls: []string{"p", "q"},
				ConcB: []float64{2, 1, 1, 3, 1, 2, 4, 1},
				ConcD: []float64{1, 2}},
		},
		Modalities: []Modality{
			{Name: "m0", NumOutcomes: 2, DependsOn: []string{"x"},
				A: []float64{0.8, 0.25, 0.2, 0.75}},
			{Name: "m1", NumOutcomes: 3, DependsOn: []string{"y", "x"},
				ConcA: []float64{1, 2, 3, 4, 2, 1, 0.5, 3, 1.5, 2.5, 1, 2}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// geoMean is exp E[ln θ] of Dirichlet columns: the entry (l, i, j) of
// alpha with shape [lead, k, n] becomes exp(ψ(α_lij) - ψ(Σ_i α_lij)).
func geoMean(alpha []float64, lead, k, n int) []float64 {
	out := make([]float64, len(alpha))
	for l := range lead {
		for j := range n {
			s := 0.0
			for i := range k {
				s += alpha[(l*k+i)*n+j]
			}
			for i := range k {
				x := (l*k+i)*n + j
				out[x] = math.Exp(expfam.Digamma(alpha[x]) - expfam.Digamma(s))
			}
		}
	}
	return out
}

// smoothedCounts enumerates the 4 × 4 joint state sequences (x_0 y_0,
// x_1 y_1) of a two-step trial of secondLearned (observations o0, o1,
// controls cx, cy between them) under the parameters exact filtering uses
// (the fixed ones, and exp E[ln θ] of the prior concentrations for the
// learned ones) and returns prior + expected counts in the file layouts:
// a_m1[o_t][y_t][x_t] += P(y_t, x_t), b_y[cy][y_1][y_0] += P(y_1, y_0),
// d_y[y_0] += P(y_0).
func smoothedCounts(m *Model, o0, o1 []int, cx, cy int) (a, b, d []float64) {
	fs := m.FactorisedSpec()
	fx, fy := fs.Factors[0], fs.Factors[1]
	m0, m1 := fs.Modalities[0], fs.Modalities[1]
	ay := geoMean(m1.ConcA, 1, 3, 4)
	by := geoMean(fy.ConcB, 2, 2, 2)
	dy := geoMean(fy.ConcD, 1, 2, 1)
	lik := func(o []int, x, y int) float64 {
		return m0.A[o[0]*2+x] * ay[o[1]*4+y*2+x]
	}
	a, b, d = clone(m1.ConcA), clone(fy.ConcB), clone(fy.ConcD)
	type path struct{ x0, y0, x1, y1 int }
	var paths []path
	var ws []float64
	total := 0.0
	for x0 := range 2 {
		for y0 := range 2 {
			for x1 := range 2 {
				for y1 := range 2 {
					w := fx.D[x0] * dy[y0] * lik(o0, x0, y0) *
						fx.B[(cx*2+x1)*2+x0] * by[(cy*2+y1)*2+y0] * lik(o1, x1, y1)
					paths = append(paths, path{x0, y0, x1, y1})
					ws = append(ws, w)
					total += w
				}
			}
		}
	}
	for k, pa := range paths {
		w := ws[k] / total
		d[pa.y0] += w
		b[(cy*2+pa.y1)*2+pa.y0] += w
		a[o0[1]*4+pa.y0*2+pa.x0] += w
		a[o1[1]*4+pa.y1*2+pa.x1] += w
	}
	return a, b, d
}

// meanFieldCounts is prior + expected counts of secondLearned's learned
// parameters from the mean-field posteriors Q(x_t), Q(y_t) of a two-step
// trial, in the file layouts: a_m1[o_t][y][x] += Q(y_t)[y] Q(x_t)[x],
// b_y[cy][n][p] += Q(y_1)[n] Q(y_0)[p], d_y += Q(y_0).
func meanFieldCounts(m *Model, p *Past, o0, o1 []int, cy int) (a, b, d []float64) {
	fs := m.FactorisedSpec()
	a, b, d = clone(fs.Modalities[1].ConcA), clone(fs.Factors[1].ConcB), clone(fs.Factors[1].ConcD)
	qx, qy := p.FactorStates(0), p.FactorStates(1)
	for s, q := range qy[0].Probs() {
		d[s] += q
	}
	for n, q1 := range qy[1].Probs() {
		for pr, q0 := range qy[0].Probs() {
			b[(cy*2+n)*2+pr] += q1 * q0
		}
	}
	for tt, o := range [][]int{o0, o1} {
		for y, q := range qy[tt].Probs() {
			for x, r := range qx[tt].Probs() {
				a[o[1]*4+y*2+x] += q * r
			}
		}
	}
	return a, b, d
}

func closeTo(got, want []float64, tol float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !(math.Abs(got[i]-want[i]) <= tol) {
			return false
		}
	}
	return true
}

// sameBits reports whether two sets of concentrations are bit for bit
// equal (nil where the other is nil).
func sameBits(x, y Concentrations) bool {
	eq := func(a, b [][]float64) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if (a[i] == nil) != (b[i] == nil) || len(a[i]) != len(b[i]) {
				return false
			}
			for j := range a[i] {
				if math.Float64bits(a[i][j]) != math.Float64bits(b[i][j]) {
					return false
				}
			}
		}
		return true
	}
	return eq(x.A, y.A) && eq(x.B, y.B) && eq(x.D, y.D)
}

// TestConcentrationsEveryModalityAndFactor: on secondLearned, where only
// the second modality and factor learn, Priors has nothing to return while
// Concentrations and Posteriors hold a for m1 and b, d for y, nil
// elsewhere, in the file layouts. After a two-step trial (o0 = (1, 2),
// control b of x and q of y, o1 = (0, 1)) the posteriors, and after
// CarryOver the priors, are prior + counts: with PastFilter the smoothed
// counts of the enumeration (smoothedCounts, to 1e-12: sums of 16 products
// in another order), with PastVMP the mean-field counts of the past's own
// posteriors Q(x_t), Q(y_t) (meanFieldCounts; VMP run until its free
// energy repeats, fixedPoint: the Dirichlet posteriors, updated before the
// states in a sweep, and the Q(S_t) read after the last sweep differ by
// that sweep's change, about 3e-13 here, within 1e-11).
func TestConcentrationsEveryModalityAndFactor(t *testing.T) {
	m := secondLearned(t)
	fs := m.FactorisedSpec()
	o0, o1 := []int{1, 2}, []int{0, 1}
	cx, cy := 1, 1
	for _, method := range []PastInference{PastFilter, PastVMP} {
		p, err := NewPastWith(m, 0, method)
		if err != nil {
			t.Fatal(err)
		}
		if a, b, d := p.Priors(); a != nil || b != nil || d != nil {
			t.Errorf("%v: Priors = %v, %v, %v, want all nil (the first modality and factor are fixed)", method, a, b, d)
		}
		c := p.Concentrations()
		if len(c.A) != 2 || len(c.B) != 2 || len(c.D) != 2 || c.A[0] != nil || c.B[0] != nil || c.D[0] != nil {
			t.Fatalf("%v: Concentrations = %+v, want 2 entries each, nil for m0 and x", method, c)
		}
		if !c.Learned() || (Concentrations{A: [][]float64{nil}}).Learned() {
			t.Errorf("%v: Learned wrong", method)
		}
		if !sameBits(c, Concentrations{
			A: [][]float64{nil, fs.Modalities[1].ConcA},
			B: [][]float64{nil, fs.Factors[1].ConcB},
			D: [][]float64{nil, fs.Factors[1].ConcD}}) {
			t.Errorf("%v: Concentrations before a trial = %+v, want the model's a, b, d", method, c)
		}
		if !sameBits(p.Posteriors(), c) {
			t.Errorf("%v: Posteriors before Reset differ from the priors", method)
		}
		ctx := context.Background()
		if err := p.Reset(jointObs(t, m, o0...)); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Infer(ctx, pastSettings); err != nil {
			t.Fatal(err)
		}
		if err := p.Grow(jointAction(t, m, cx, cy), jointObs(t, m, o1...)); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Infer(ctx, fixedPoint); err != nil {
			t.Fatal(err)
		}
		var a, b, d []float64
		tol := 1e-12
		if method == PastFilter {
			a, b, d = smoothedCounts(m, o0, o1, cx, cy)
		} else {
			a, b, d = meanFieldCounts(m, p, o0, o1, cy)
			tol = 1e-11
		}
		check := func(what string, c Concentrations) {
			t.Helper()
			if c.A[0] != nil || c.B[0] != nil || c.D[0] != nil {
				t.Errorf("%v: %s: entries for the fixed m0 or x", method, what)
			}
			if !closeTo(c.A[1], a, tol) || !closeTo(c.B[1], b, tol) || !closeTo(c.D[1], d, tol) {
				t.Errorf("%v: %s = a %v, b %v, d %v;\nwant a %v, b %v, d %v", method, what, c.A[1], c.B[1], c.D[1], a, b, d)
			}
		}
		if method == PastVMP {
			// Posteriors is the graph's Dirichlet variables, B from
			// [next][prev][u] to the file's [u][next][prev].
			post := p.Posteriors()
			f := p.facs[1]
			if !slices.Equal(post.D[1], f.dVar.Alpha()) || !slices.Equal(post.B[1], FromNPU(f.bVar.Alpha(), 2, 2)) ||
				!slices.Equal(post.A[1], p.mods[1].aVar.Alpha()) {
				t.Errorf("vmp: Posteriors differ from the Dirichlet variables")
			}
		}
		check("Posteriors during the trial", p.Posteriors())
		if !sameBits(p.Concentrations(), c) {
			t.Errorf("%v: the priors changed within the trial", method)
		}
		p.CarryOver()
		check("Concentrations after CarryOver", p.Concentrations())
		if !sameBits(p.Posteriors(), p.Concentrations()) {
			t.Errorf("%v: after CarryOver with η = ω = 1, Posteriors %+v differ from Concentrations %+v", method, p.Posteriors(), p.Concentrations())
		}
		// Copies: changing what was returned changes nothing.
		got := p.Concentrations()
		got.D[1][0] = 100
		if p.Concentrations().D[1][0] == 100 {
			t.Errorf("%v: Concentrations returned the past's own slice", method)
		}
	}
}

// TestConcentrationsTMaze: the T-maze file learns only the second
// factor's d (its "d": [1, 1]); Priors returns nothing for it, and
// Concentrations returns D[1] = (1, 1), nil elsewhere.
func TestConcentrationsTMaze(t *testing.T) {
	p, err := NewPast(loadTMaze(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, d := p.Priors(); d != nil {
		t.Errorf("Priors d = %v, want nil (the first factor has no d)", d)
	}
	c := p.Concentrations()
	if len(c.D) != 2 || c.D[0] != nil || !slices.Equal(c.D[1], []float64{1, 1}) {
		t.Errorf("D = %v, want [nil [1 1]]", c.D)
	}
	for _, x := range append(c.A, c.B...) {
		if x != nil {
			t.Errorf("A %v, B %v: want nil throughout", c.A, c.B)
		}
	}
}

// oneHot is a single-factor model (built with NewFactorised) whose
// first modality, "see", shows the state through the identity A, so that
// every posterior over a state is one-hot, and whose second, "hint", is
// learned:
//
//	factor s: 2 states, controls stay, swap; b[stay] = [[3, 1], [1, 3]],
//	          b[swap] = [[1, 2], [2, 1]] ([next][prev]); d = (1, 1)
//	modality see over s: A = identity
//	modality hint over s: a = [[1, 2], [3, 4]] ([o][s])
//
// The concentrations are arbitrary positive numbers, different so that a
// wrong index shows.
func oneHot(t *testing.T) *Model {
	t.Helper()
	m, err := NewFactorised(FactorisedSpec{
		Factors: []Factor{{Name: "s", NumStates: 2, Controls: []string{"stay", "swap"},
			ConcB: []float64{3, 1, 1, 3, 1, 2, 2, 1}, ConcD: []float64{1, 1}}},
		Modalities: []Modality{
			{Name: "see", NumOutcomes: 2, DependsOn: []string{"s"}, A: []float64{1, 0, 0, 1}},
			{Name: "hint", NumOutcomes: 2, DependsOn: []string{"s"}, ConcA: []float64{1, 2, 3, 4}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// runTrial runs one trial of p: the first observation, then each
// (action, observation), Infer after each.
func runTrial(t *testing.T, p *Past, first int, steps [][2]int) {
	t.Helper()
	ctx := context.Background()
	if err := p.Reset(first); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Infer(ctx, pastSettings); err != nil {
		t.Fatal(err)
	}
	for _, st := range steps {
		if err := p.Grow(st[0], st[1]); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Infer(ctx, pastSettings); err != nil {
			t.Fatal(err)
		}
	}
}

// relearned is ω c + η Δ, element by element.
func relearned(c, delta []float64, eta, omega float64) []float64 {
	out := make([]float64, len(c))
	for i := range c {
		out[i] = omega*c[i] + eta*delta[i]
	}
	return out
}

// TestLearningRateAndForgetting: a two-step trial of oneHot in which "see"
// shows state 0 and then, after swap, state 1 (hint shows 1 both times):
// Q(S_0) = (1, 0) and Q(S_1) = (0, 1) exactly, for the mean field (an
// identity A over one factor is used as given: ln 0 = -Inf excludes the
// other state) and for exact smoothing alike, so the trial's counts are,
// by hand,
//
//	Δd = Q(S_0) = (1, 0)
//	Δa[hint][o][s] = Σ_t [o_t = o] Q(S_t)[s] = [[0, 0], [1, 1]]
//	Δb[swap][next][prev] = Q(S_1)[next] Q(S_0)[prev] = [[0, 0], [1, 0]],
//	Δb[stay] = 0
//
// and c' = ω c + η Δc. With η = 0.5, ω = 0.8: d' = 0.8·(1, 1) + 0.5·(1, 0)
// = (1.3, 0.8); a' = 0.8·[[1, 2], [3, 4]] + 0.5·[[0, 0], [1, 1]] = [[0.8,
// 1.6], [2.9, 3.7]]; b'[swap] = 0.8·[[1, 2], [2, 1]] + 0.5·[[0, 0], [1,
// 0]] = [[0.8, 1.6], [2.1, 0.8]], b'[stay] = 0.8·[[3, 1], [1, 3]]. The
// other cases use the same Δ through relearned. Tolerance 1e-12: one
// multiply-add per entry, and the one-hot counts are exact.
func TestLearningRateAndForgetting(t *testing.T) {
	m := oneHot(t)
	first := jointObs(t, m, 0, 1)
	steps := [][2]int{{1, jointObs(t, m, 1, 1)}}
	fs := m.FactorisedSpec()
	c := Concentrations{
		A: [][]float64{nil, fs.Modalities[1].ConcA},
		B: [][]float64{fs.Factors[0].ConcB},
		D: [][]float64{fs.Factors[0].ConcD},
	}
	delta := Concentrations{
		A: [][]float64{nil, {0, 0, 1, 1}},
		B: [][]float64{{0, 0, 0, 0, 0, 0, 1, 0}},
		D: [][]float64{{1, 0}},
	}
	cases := []struct {
		eta, omega float64
		want       Concentrations // nil: relearned from c and delta
	}{
		{0.5, 0.8, Concentrations{
			A: [][]float64{nil, {0.8, 1.6, 2.9, 3.7}},
			B: [][]float64{{2.4, 0.8, 0.8, 2.4, 0.8, 1.6, 2.1, 0.8}},
			D: [][]float64{{1.3, 0.8}},
		}},
		{0, 0.8, Concentrations{}},    // nothing learned: 0.8 c
		{0, 1, Concentrations{}},      // the prior kept as it was
		{1, 0.5, Concentrations{}},    // forgetting only
		{2.5, 1, Concentrations{}},    // rate only
		{0.25, 0.6, Concentrations{}}, // both
	}
	for _, method := range []PastInference{PastVMP, PastFilter} {
		for _, tc := range cases {
			want := tc.want
			if want.D == nil {
				want = Concentrations{
					A: [][]float64{nil, relearned(c.A[1], delta.A[1], tc.eta, tc.omega)},
					B: [][]float64{relearned(c.B[0], delta.B[0], tc.eta, tc.omega)},
					D: [][]float64{relearned(c.D[0], delta.D[0], tc.eta, tc.omega)},
				}
			}
			p, err := NewPastWith(m, 0, method)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.SetLearning(Learning{Rate: ptr(tc.eta), Forgetting: ptr(tc.omega)}); err != nil {
				t.Fatal(err)
			}
			if eta, omega := p.LearningRates(); eta != tc.eta || omega != tc.omega {
				t.Errorf("LearningRates = %v, %v, want %v, %v", eta, omega, tc.eta, tc.omega)
			}
			runTrial(t, p, first, steps)
			// The trial's posteriors are c + Δ whatever η and ω.
			post := p.Posteriors()
			if !closeTo(post.D[0], relearned(c.D[0], delta.D[0], 1, 1), 1e-12) ||
				!closeTo(post.A[1], relearned(c.A[1], delta.A[1], 1, 1), 1e-12) ||
				!closeTo(post.B[0], relearned(c.B[0], delta.B[0], 1, 1), 1e-12) {
				t.Errorf("%v η=%v ω=%v: Posteriors %+v, want c + Δ", method, tc.eta, tc.omega, post)
			}
			p.CarryOver()
			got := p.Concentrations()
			if got.A[0] != nil || !closeTo(got.A[1], want.A[1], 1e-12) || !closeTo(got.B[0], want.B[0], 1e-12) ||
				!closeTo(got.D[0], want.D[0], 1e-12) {
				t.Errorf("%v η=%v ω=%v: after CarryOver %+v, want %+v", method, tc.eta, tc.omega, got, want)
			}
			// A second CarryOver changes nothing.
			p.CarryOver()
			if !sameBits(p.Concentrations(), got) {
				t.Errorf("%v η=%v ω=%v: a second CarryOver changed the priors to %+v", method, tc.eta, tc.omega, p.Concentrations())
			}
		}
	}
}

// TestLearningDefaultsBitForBit: η = ω = 1, given explicitly or as nil
// fields, leaves the priors of every trial bit for bit as a Past that never
// had SetLearning called, and equal to the posteriors the trial ended with,
// for both past inferences, with and without a window, over three trials
// of random observations and actions of secondLearned (every observation
// has positive probability: its A has no zero, its a is learned).
func TestLearningDefaultsBitForBit(t *testing.T) {
	m := secondLearned(t)
	for _, method := range []PastInference{PastVMP, PastFilter} {
		for _, window := range []int{0, 2} {
			var ps []*Past
			for _, l := range []*Learning{nil, {}, {Rate: ptr(1), Forgetting: ptr(1)}} {
				p, err := NewPastWith(m, window, method)
				if err != nil {
					t.Fatal(err)
				}
				if l != nil {
					if err := p.SetLearning(*l); err != nil {
						t.Fatal(err)
					}
				}
				ps = append(ps, p)
			}
			rng := rand.New(rand.NewPCG(5, 6))
			for trial := range 3 {
				first := rng.IntN(m.NumObs())
				steps := make([][2]int, 4)
				for i := range steps {
					steps[i] = [2]int{rng.IntN(m.NumActions()), rng.IntN(m.NumObs())}
				}
				for _, p := range ps {
					runTrial(t, p, first, steps)
					p.CarryOver()
				}
				ref := ps[0].Concentrations()
				for k, p := range ps[1:] {
					if !sameBits(p.Concentrations(), ref) {
						t.Errorf("%v window %d trial %d: setting %d differs from the default", method, window, trial, k+1)
					}
				}
				if !sameBits(ps[0].Posteriors(), ref) {
					t.Errorf("%v window %d trial %d: the posteriors carried over differ from the priors", method, window, trial)
				}
			}
		}
	}
}

// TestLearningInvalid: η must be finite and >= 0, ω in (0, 1]; the
// errors name the field, and a rejected setting leaves the previous one.
func TestLearningInvalid(t *testing.T) {
	p, err := NewPast(oneHot(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SetLearning(Learning{Rate: ptr(0.5), Forgetting: ptr(0.9)}); err != nil {
		t.Fatal(err)
	}
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -0.5} {
		err := p.SetLearning(Learning{Rate: ptr(x)})
		if err == nil || !strings.HasPrefix(err.Error(), "pomdp: Learning.Rate: ") {
			t.Errorf("Rate %v: error %v, want one naming Learning.Rate", x, err)
		}
	}
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, -0.5, 1.5, math.Nextafter(1, 2)} {
		err := p.SetLearning(Learning{Forgetting: ptr(x)})
		if err == nil || !strings.HasPrefix(err.Error(), "pomdp: Learning.Forgetting: ") {
			t.Errorf("Forgetting %v: error %v, want one naming Learning.Forgetting", x, err)
		}
	}
	if eta, omega := p.LearningRates(); eta != 0.5 || omega != 0.9 {
		t.Errorf("after rejected settings η, ω = %v, %v, want the earlier 0.5, 0.9", eta, omega)
	}
	for _, l := range []Learning{{}, {Rate: ptr(0)}, {Forgetting: ptr(1)}, {Rate: ptr(1e6), Forgetting: ptr(math.SmallestNonzeroFloat64)}} {
		if err := l.Validate(); err != nil {
			t.Errorf("%v: %v", l, err)
		}
	}
	if eta, omega := (Learning{}).Values(); eta != 1 || omega != 1 {
		t.Errorf("zero Learning: η, ω = %v, %v, want 1, 1", eta, omega)
	}
}

// TestLearningWindowFolds: with a window of 2, a four-step trial of oneHot
// folds its first two steps into the priors within the trial; the counts
// of the folded steps are scaled by η like the others: c' = ω c + η (all
// counts of the trial). The trial: "see" shows states 0, 1, 0, 0 (after
// swap, swap, stay) and "hint" outcomes 0, 1, 0, 1, so by hand
//
//	Δd = (1, 0)
//	Δa[hint][o][s]: (o, s) = (0, 0), (1, 1), (0, 0), (1, 0) → [[2, 0], [1, 1]]
//	Δb[stay][next][prev]: 0 → 0 → [[1, 0], [0, 0]]
//	Δb[swap]: 0 → 1 and 1 → 0 → [[0, 1], [1, 0]]
//
// and with η = 0.5, ω = 0.8: d' = 0.8·(1, 1) + 0.5·(1, 0) = (1.3, 0.8),
// a' = [[0.8 + 1, 1.6], [2.4 + 0.5, 3.2 + 0.5]] = [[1.8, 1.6], [2.9, 3.7]],
// b'[stay] = [[2.4 + 0.5, 0.8], [0.8, 2.4]] = [[2.9, 0.8], [0.8, 2.4]],
// b'[swap] = [[0.8, 1.6 + 0.5], [1.6 + 0.5, 0.8]] = [[0.8, 2.1], [2.1, 0.8]].
// Within the trial the mean field's priors hold the folded steps' counts
// in full: d = (1, 1) + Q(S_0) = (2, 1) once S_0 is folded.
func TestLearningWindowFolds(t *testing.T) {
	m := oneHot(t)
	first := jointObs(t, m, 0, 0)
	steps := [][2]int{{1, jointObs(t, m, 1, 1)}, {1, jointObs(t, m, 0, 0)}, {0, jointObs(t, m, 0, 1)}}
	want := Concentrations{
		A: [][]float64{nil, {1.8, 1.6, 2.9, 3.7}},
		B: [][]float64{{2.9, 0.8, 0.8, 2.4, 0.8, 2.1, 2.1, 0.8}},
		D: [][]float64{{1.3, 0.8}},
	}
	for _, method := range []PastInference{PastVMP, PastFilter} {
		p, err := NewPastWith(m, 2, method)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.SetLearning(Learning{Rate: ptr(0.5), Forgetting: ptr(0.8)}); err != nil {
			t.Fatal(err)
		}
		runTrial(t, p, first, steps)
		if p.Kept() != 2 || p.Time() != 3 {
			t.Fatalf("%v: kept %d steps at time %d, want 2 at 3", method, p.Kept(), p.Time())
		}
		if method == PastVMP {
			if d := p.Concentrations().D[0]; !closeTo(d, []float64{2, 1}, 1e-12) {
				t.Errorf("vmp: d within the trial = %v, want (2, 1) with S_0 folded", d)
			}
		}
		p.CarryOver()
		got := p.Concentrations()
		if !closeTo(got.A[1], want.A[1], 1e-12) || !closeTo(got.B[0], want.B[0], 1e-12) || !closeTo(got.D[0], want.D[0], 1e-12) {
			t.Errorf("%v: after CarryOver %+v, want %+v", method, got, want)
		}
	}
}

// TestConcentrationsClone: Clone copies every entry and keeps nil ones.
func TestConcentrationsClone(t *testing.T) {
	c := Concentrations{A: [][]float64{nil, {1, 2}}, D: [][]float64{{3}}}
	d := c.Clone()
	d.A[1][0], d.D[0][0] = 9, 9
	if c.A[1][0] != 1 || c.D[0][0] != 3 || d.A[0] != nil || d.B != nil {
		t.Errorf("Clone shares or invents entries: %+v from %+v", d, c)
	}
	if (Concentrations{}).Learned() {
		t.Error("the zero Concentrations reports learning")
	}
}

// fixedPoint runs VMP until the free energy repeats exactly (or 10000
// sweeps), so that the Dirichlet posteriors and the state posteriors they
// were computed from agree to rounding.
var fixedPoint = &schedule.Settings{Iterations: 10000, Tolerance: 1e-300}
