package pomdp

import (
	"context"
	"math"
	"strings"
	"testing"
)

// TestPastFactorisedMatchesFilter: on a model whose factors stay
// independent (each modality reports one factor, D a product), exact
// filtering over the joint state factorises, so factorised filtering gives
// the same beliefs at every step, and the same -ln Z.
func TestPastFactorisedMatchesFilter(t *testing.T) {
	noisy := strings.NewReplacer(`"A": [[1, 0], [0, 1]]`, `"A": [[0.8, 0.3], [0.2, 0.7]]`, `"D": [1, 0]`, `"D": [0.6, 0.4]`)
	m, err := Parse([]byte(noisy.Replace(sharedToy)))
	if err != nil {
		t.Fatal(err)
	}
	exact, err := NewPastWith(m, 0, PastFilter)
	if err != nil {
		t.Fatal(err)
	}
	fact, err := NewPastWith(m, 0, PastFactorised)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct{ action, obs int }{{-1, 2}, {1, 0}, {0, 3}, {1, 1}}
	for k, st := range steps {
		for _, p := range []*Past{exact, fact} {
			if k == 0 {
				err = p.Reset(st.obs)
			} else {
				err = p.Grow(st.action, st.obs)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		r1, err1 := exact.Infer(context.Background(), nil)
		r2, err2 := fact.Infer(context.Background(), nil)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		b1, b2 := exact.Belief(), fact.Belief()
		for s := range b1 {
			if math.Abs(b1[s]-b2[s]) > 1e-12 {
				t.Errorf("step %d: belief %v, factorised %v", k, b1, b2)
				break
			}
		}
		if f1, f2 := r1.FreeEnergy[0], r2.FreeEnergy[0]; math.Abs(f1-f2) > 1e-12 {
			t.Errorf("step %d: F %v, factorised %v", k, f1, f2)
		}
	}
	if got := len(fact.Smoothed()); got != len(steps) {
		t.Errorf("Smoothed: %d beliefs, want %d", got, len(steps))
	}
}
