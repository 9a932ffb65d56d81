package messages

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// bruteInner is the definition of paper Appendix A written as a sum over
// every element of W, independently of Inner's row-wise algorithm.
func bruteInner(w Tensor, vecs [][]float64, axis int) []float64 {
	out := make([]float64, w.Shape[axis])
	idx := make([]int, len(w.Shape))
	for off := range w.Data {
		rem := off
		for j := len(w.Shape) - 1; j >= 0; j-- {
			idx[j] = rem % w.Shape[j]
			rem /= w.Shape[j]
		}
		p := w.Data[off]
		for j := range w.Shape {
			if j != axis {
				p *= vecs[j][idx[j]]
			}
		}
		out[idx[axis]] += p
	}
	return out
}

func randTensor(rng *rand.Rand, shape []int) (Tensor, [][]float64) {
	n := 1
	for _, s := range shape {
		n *= s
	}
	data := make([]float64, n)
	for i := range data {
		data[i] = rng.NormFloat64()
	}
	vecs := make([][]float64, len(shape))
	for j, s := range shape {
		vecs[j] = make([]float64, s)
		for i := range vecs[j] {
			vecs[j][i] = rng.Float64()
		}
	}
	t, err := NewTensor(data, shape)
	if err != nil {
		panic(err)
	}
	return t, vecs
}

func TestInnerMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	shapes := [][]int{{4}, {3, 5}, {5, 3}, {2, 3, 4}, {3, 1, 2, 2}, {2, 2, 2, 2, 3}}
	for _, shape := range shapes {
		w, vecs := randTensor(rng, shape)
		for axis := range shape {
			want := bruteInner(w, vecs, axis)
			got := Inner(nil, w, vecs, axis)
			if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); d != "" {
				t.Errorf("shape %v axis %d: mismatch (-want +got):\n%s", shape, axis, d)
			}
		}
	}
}

func TestInnerKnownValues(t *testing.T) {
	// A 2x3 matrix A with rows (1 2 3), (4 5 6). Weighting the rows
	// (observation axis 0) by o = (1, 0) gives row 0 = (1 2 3); weighting the
	// columns (state axis 1) by s = (1, 1, 1)/... here s = (0.5, 0.5, 0)
	// gives (1.5, 4.5): the matrix-vector product A s (paper Appendix B).
	a, _ := NewTensor([]float64{1, 2, 3, 4, 5, 6}, []int{2, 3}, "obs", "state")
	o := []float64{1, 0}
	s := []float64{0.5, 0.5, 0}
	if got := Inner(nil, a, [][]float64{o, nil}, a.Axis("state")); !cmp.Equal(got, []float64{1, 2, 3}) {
		t.Errorf("A ⊙ o = %v, want [1 2 3]", got)
	}
	if got := Inner(nil, a, [][]float64{nil, s}, a.Axis("obs")); !cmp.Equal(got, []float64{1.5, 4.5}) {
		t.Errorf("A ⊙ s = %v, want [1.5 4.5]", got)
	}
}

func TestZeroWeightSkipsMinusInf(t *testing.T) {
	// ln of a matrix with a structural zero: column 1 is (0, 1), so
	// ln = (-Inf, 0). With q(out) = (0, 1), the message to "in" is
	// sum_o q(o) ln M[o, in] = (ln 0.5, 0): 0 · (-Inf) counts as 0 (0 ln 0 = 0).
	w, _ := NewTensor([]float64{math.Log(0.5), math.Inf(-1), math.Log(0.5), 0}, []int{2, 2})
	got := Inner(nil, w, [][]float64{{0, 1}, nil}, 1)
	want := []float64{math.Log(0.5), 0}
	if !cmp.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	// With q(out) = (1, 0) the second entry is -Inf: that state is impossible.
	got = Inner(nil, w, [][]float64{{1, 0}, nil}, 1)
	if !math.IsInf(got[1], -1) || got[0] != math.Log(0.5) {
		t.Errorf("got %v, want [ln 0.5, -Inf]", got)
	}
	// The full contraction under q(out) = (0, 1), q(in) = (0, 1) is ln 1 = 0.
	if c := Contract(w, [][]float64{{0, 1}, {0, 1}}); c != 0 {
		t.Errorf("Contract = %v, want 0", c)
	}
}

func TestOuterAndContract(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	w, vecs := randTensor(rng, []int{2, 3, 4})
	// <W, ⊗ vecs> = sum of W ⊙ [others] weighted by the remaining vector,
	// for every choice of remaining axis.
	want := Contract(w, vecs)
	for axis := range w.Shape {
		m := bruteInner(w, vecs, axis)
		s := 0.0
		for i, x := range m {
			s += x * vecs[axis][i]
		}
		if math.Abs(s-want) > 1e-12 {
			t.Errorf("axis %d: %v, want %v", axis, s, want)
		}
	}
	// Outer: element (i, j, k) is v0[i] v1[j] v2[k] (Appendix A definition).
	o := Outer(nil, vecs...)
	for i := range 2 {
		for j := range 3 {
			for k := range 4 {
				if got, want := o[(i*3+j)*4+k], vecs[0][i]*vecs[1][j]*vecs[2][k]; math.Abs(got-want) > 1e-15 {
					t.Fatalf("outer(%d,%d,%d) = %v, want %v", i, j, k, got, want)
				}
			}
		}
	}
	AddOuter(o, -1, vecs...)
	for i, x := range o {
		if math.Abs(x) > 1e-15 {
			t.Fatalf("outer - outer [%d] = %v, want 0", i, x)
		}
	}
}

func TestProductsDoNotAllocate(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	w, vecs := randTensor(rng, []int{5, 4, 3})
	dst := make([]float64, 4)
	out := make([]float64, 60)
	if n := testing.AllocsPerRun(100, func() {
		Inner(dst, w, vecs, 1)
		Contract(w, vecs)
		Outer(out, vecs...)
	}); n != 0 {
		t.Errorf("allocations per run = %v, want 0", n)
	}
}

func TestMultilinearMessagesAreGradients(t *testing.T) {
	// The message to each interface is the gradient of ExpectedLog with
	// respect to that interface's statistics; ExpectedLog is linear in each,
	// so a central difference is exact up to rounding.
	rng := rand.New(rand.NewPCG(7, 8))
	shape := []int{3, 2, 4}
	_, vecs := randTensor(rng, shape)
	wstat := make([]float64, 24)
	for i := range wstat {
		wstat[i] = -rng.Float64() * 3
	}
	// interfaces: 0 out, 1 in1, 2 in2, 3 matrix (param)
	m, err := NewMultilinear(Tensor{}, shape, 3, []int{0, 1, 2}, 0.25)
	if err != nil {
		t.Fatal(err)
	}
	stats := [][]float64{vecs[0], vecs[1], vecs[2], wstat}
	for k := range stats {
		msg := make([]float64, len(stats[k]))
		m.Message(msg, k, stats)
		for i := range msg {
			x := stats[k][i]
			stats[k][i] = x + 1e-4
			up := m.ExpectedLog(stats)
			stats[k][i] = x - 1e-4
			down := m.ExpectedLog(stats)
			stats[k][i] = x
			if fd := (up - down) / 2e-4; math.Abs(fd-msg[i]) > 1e-8 {
				t.Errorf("interface %d entry %d: message %v, finite difference %v", k, i, msg[i], fd)
			}
		}
	}
}

func TestNewMultilinearErrors(t *testing.T) {
	w, _ := NewTensor([]float64{1, 2}, []int{2})
	for _, tc := range []struct {
		name  string
		shape []int
		param int
		axes  []int
		want  string
	}{
		{"rank", []int{2}, -1, []int{0, 1}, "2 axes bound"},
		{"param axis", []int{2}, 0, []int{0}, "non-parameter"},
		{"weights shape", []int{3}, -1, []int{0}, "weights of shape"},
		{"bad extent", []int{0}, -1, []int{0}, "extent 0"},
	} {
		_, err := NewMultilinear(w, tc.shape, tc.param, tc.axes, 0)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to mention %q", tc.name, err, tc.want)
		}
	}
}

func TestNoRuleError(t *testing.T) {
	var err error = &NoRuleError{Factor: `softmax "prior"`, Interface: "values", Rules: []string{"out", "precision"}}
	want := `no message rule for factor softmax "prior" on interface "values" (rules exist for: out, precision)`
	if err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
	var nr *NoRuleError
	if !errors.As(err, &nr) {
		t.Error("errors.As failed")
	}
}

func BenchmarkInnerMatrix10(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	w, vecs := randTensor(rng, []int{10, 10})
	dst := make([]float64, 10)
	b.ReportAllocs()
	for b.Loop() {
		Inner(dst, w, vecs, 0)
		Inner(dst, w, vecs, 1)
	}
}

func BenchmarkInnerRank3(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	w, vecs := randTensor(rng, []int{10, 10, 5})
	dst := make([]float64, 10)
	b.ReportAllocs()
	for b.Loop() {
		Inner(dst, w, vecs, 0)
	}
}

func BenchmarkOuter(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	_, vecs := randTensor(rng, []int{10, 10, 5})
	dst := make([]float64, 500)
	b.ReportAllocs()
	for b.Loop() {
		Outer(dst, vecs...)
	}
}
