package pomdp

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"
)

// TestUpdateAsInfer: Update leaves the belief Infer leaves, bit for bit,
// under exact, factorised and VMP inference of the T-maze's past over
// three steps, and errs as Infer does before Reset and on a done context.
// (Factorised filtering learns nothing: the T-maze there has its context
// prior D = [0.5, 0.5] fixed in place of its concentrations d = [1, 1].)
func TestUpdateAsInfer(t *testing.T) {
	m := loadTMaze(t)
	data, err := os.ReadFile("testdata/factorised-tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	fixed, err := Parse([]byte(strings.Replace(string(data), `"d": [1, 1]`, `"D": [0.5, 0.5]`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, d := fixed.Learnable(); d {
		t.Fatal("the fixed T-maze learns D")
	}
	ctx := context.Background()
	// Start; to the cue, which shows the left arm; to the left arm,
	// rewarded (the actions are the locations gone to).
	var obs []int
	for _, outcomes := range [][]int{{0, 0, 0}, {1, 1, 0}, {2, 0, 1}} {
		o, err := m.EncodeObs(outcomes)
		if err != nil {
			t.Fatal(err)
		}
		obs = append(obs, o)
	}
	for _, method := range []PastInference{PastFilter, PastFactorised, PastVMP} {
		m := m
		if method == PastFactorised {
			m = fixed
		}
		a, err := NewPastWith(m, 0, method)
		if err != nil {
			t.Fatal(err)
		}
		b, err := NewPastWith(m, 0, method)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Update(ctx); err == nil {
			t.Errorf("method %d: Update before Reset: no error", method)
		}
		for step, o := range obs {
			for _, p := range []*Past{a, b} {
				var err error
				if step == 0 {
					err = p.Reset(o)
				} else {
					err = p.Grow(step, o) // action 1 (the cue), then 2 (left)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if _, err := a.Infer(ctx, nil); err != nil {
				t.Fatal(err)
			}
			if err := b.Update(ctx); err != nil {
				t.Fatal(err)
			}
			want, got := a.Belief(), b.Belief()
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("method %d, step %d: belief %v after Update, %v after Infer", method, step, got, want)
				}
			}
		}
		done, cancel := context.WithCancel(ctx)
		cancel()
		if err := b.Update(done); err == nil {
			t.Errorf("method %d: Update on a done context: no error", method)
		}
	}
}
