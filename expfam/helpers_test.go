package expfam_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// The import-DAG check (.ci/importcheck.sh) allows expfam, tests included, to
// import gonum only, so these helpers stand in for go-cmp's EquateApprox.

// near reports whether got is within tol of want, absolutely or relatively:
// |got - want| <= tol * max(1, |want|). Equal infinities are close.
func near(got, want, tol float64) bool {
	if got == want {
		return true
	}
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

// checkClose fails the test unless got is close to want (see near).
func checkClose(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if !near(got, want, tol) {
		t.Errorf("%s = %.17g, want %.17g (tolerance %g, diff %g)", name, got, want, tol, got-want)
	}
}

// checkRel fails the test unless |got - want| <= tol * |want|.
func checkRel(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if !(math.Abs(got-want) <= tol*math.Abs(want)) {
		t.Errorf("%s = %.17g, want %.17g (relative tolerance %g, relative diff %g)", name, got, want, tol, math.Abs(got-want)/math.Abs(want))
	}
}

// sliceDiff returns "" when got and want have equal lengths and every pair is
// close (NaN matches NaN), else a "mismatch (-want +got)" report.
func sliceDiff(want, got []float64, tol float64) string {
	ok := len(want) == len(got)
	for i := 0; ok && i < len(want); i++ {
		ok = near(got[i], want[i], tol) || (math.IsNaN(got[i]) && math.IsNaN(want[i]))
	}
	if ok {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "mismatch (-want +got) with tolerance %g:\n-%v\n+%v", tol, want, got)
	return b.String()
}

// mustPanic fails the test unless f panics with a message that starts with
// "expfam: ".
func mustPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Errorf("%s did not panic", name)
			return
		}
		if s := fmt.Sprint(r); !strings.HasPrefix(s, "expfam: ") {
			t.Errorf("%s panicked with %q, want prefix %q", name, s, "expfam: ")
		}
	}()
	f()
}

// dot returns x·y, skipping terms where x_i = 0 (0 · ±Inf = 0 in the entropy
// identities).
func dot(x, y []float64) float64 {
	var s float64
	for i := range x {
		if x[i] != 0 {
			s += x[i] * y[i]
		}
	}
	return s
}

// centralDiff returns the central difference estimate of the partial
// derivative of f at x along coordinate i with step h.
func centralDiff(f func([]float64) float64, x []float64, i int, h float64) float64 {
	xp := append([]float64(nil), x...)
	xm := append([]float64(nil), x...)
	xp[i] += h
	xm[i] -= h
	return (f(xp) - f(xm)) / (xp[i] - xm[i])
}

// wantErr fails the test unless err is not nil and contains every fragment.
func wantErr(t *testing.T, name string, err error, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want one containing %q", name, fragments)
		return
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("%s: error %q does not contain %q", name, err, f)
		}
	}
	if !strings.HasPrefix(err.Error(), "expfam: ") {
		t.Errorf("%s: error %q lacks the prefix \"expfam: \"", name, err)
	}
}
