package pomdp_test

import (
	"math"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/pomdp"
)

// TestScaleModel: pref multiplies ln C (ratios of C become powers) and conc
// multiplies every concentration, leaving the expectations as they are.
func TestScaleModel(t *testing.T) {
	m, err := pomdp.Load("../examples/pomdp/tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	same, err := pomdp.ScaleModel(m, 1, 1)
	if err != nil || same != m {
		t.Fatalf("ScaleModel(m, 1, 1) = %p, %v; want m itself", same, err)
	}
	s, err := pomdp.ScaleModel(m, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	fs, ss := m.FactorisedSpec(), s.FactorisedSpec()
	for i := range fs.Modalities {
		c, c2 := fs.Modalities[i].C, ss.Modalities[i].C
		// ln C'_o - ln C'_0 = 2 (ln C_o - ln C_0): the log-ratios double.
		for o := range c {
			if c[o] == 0 {
				if c2[o] != 0 {
					t.Errorf("modality %d: C[%d] = 0 became %v", i, o, c2[o])
				}
				continue
			}
			want := 2 * (math.Log(c[o]) - math.Log(c[0]))
			if got := math.Log(c2[o]) - math.Log(c2[0]); math.Abs(got-want) > 1e-12 {
				t.Errorf("modality %d: ln C'[%d]/C'[0] = %v, want %v", i, o, got, want)
			}
		}
	}
	for f := range fs.Factors {
		for k, d := range fs.Factors[f].ConcD {
			if got := ss.Factors[f].ConcD[k]; got != 3*d {
				t.Errorf("factor %d: d[%d] = %v, want 3 × %v", f, k, got, d)
			}
		}
		for k, d := range fs.Factors[f].D {
			if got := ss.Factors[f].D[k]; math.Abs(got-d) > 1e-15 {
				t.Errorf("factor %d: D[%d] = %v, want %v (unchanged)", f, k, got, d)
			}
		}
	}
	// The original is untouched.
	if got := m.FactorisedSpec(); got.Factors[1].ConcD[0] != fs.Factors[1].ConcD[0] || got.Modalities[2].C[1] != fs.Modalities[2].C[1] {
		t.Error("ScaleModel changed its input")
	}
	for _, c := range []struct {
		pref, conc float64
		want       string
	}{
		{0, 1, "pref 0"}, {-1, 1, "pref -1"}, {math.NaN(), 1, "pref NaN"}, {1, math.Inf(1), "conc +Inf"},
	} {
		_, err := pomdp.ScaleModel(m, c.pref, c.conc)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ScaleModel(%v, %v): %v, want an error with %q", c.pref, c.conc, err, c.want)
		}
	}
}
