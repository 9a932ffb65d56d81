package pomdp

import (
	"context"
	"math"
	"os"
	"slices"
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

// TestPlanningModel: a past that learns D alone (the T-maze's context
// prior) plans with its own model, whose A, B and C its expected model has
// bit for bit, however D has moved; one that learns A plans with its
// expected model's A; the zero Past is an error.
func TestPlanningModel(t *testing.T) {
	if _, err := new(Past).PlanningModel(); err == nil || !strings.HasPrefix(err.Error(), "pomdp: ") {
		t.Errorf("zero Past: err %v, want one with the package prefix", err)
	}
	m := loadTMaze(t)
	p, err := NewPastWith(m, 0, PastFilter)
	if err != nil {
		t.Fatal(err)
	}
	start, err := m.EncodeObs([]int{0, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	reward, err := m.EncodeObs([]int{2, 0, 1}) // the left arm, rewarded
	if err != nil {
		t.Fatal(err)
	}
	for trial := range 3 {
		if err := p.Reset(start); err != nil {
			t.Fatal(err)
		}
		if err := p.Grow(2, reward); err != nil {
			t.Fatal(err)
		}
		got, err := p.PlanningModel()
		if err != nil {
			t.Fatal(err)
		}
		if got != m {
			t.Fatalf("trial %d: the planning model of a past learning D alone is not its model", trial)
		}
		exp, err := p.ExpectedModel()
		if err != nil {
			t.Fatal(err)
		}
		for i := range m.NumModalities() {
			if !slices.Equal(exp.ModalityA(i), m.ModalityA(i)) || !slices.Equal(exp.ModalityC(i), m.ModalityC(i)) {
				t.Fatalf("trial %d, modality %d: the expected model's A or C differs from the model's", trial, i)
			}
		}
		for f := range m.NumFactors() {
			if !slices.Equal(exp.FactorB(f), m.FactorB(f)) {
				t.Fatalf("trial %d, factor %d: the expected model's B differs from the model's", trial, f)
			}
		}
		p.CarryOver()
	}

	ma, err := Load("testdata/tiny-pomdp-a.json")
	if err != nil {
		t.Fatal(err)
	}
	if la, _, _ := ma.Learnable(); !la {
		t.Fatal("tiny-pomdp-a.json learns no A")
	}
	pa, err := NewPastWith(ma, 0, PastFilter)
	if err != nil {
		t.Fatal(err)
	}
	if err := pa.Reset(0); err != nil {
		t.Fatal(err)
	}
	if err := pa.Grow(0, 1); err != nil {
		t.Fatal(err)
	}
	got, err := pa.PlanningModel()
	if err != nil {
		t.Fatal(err)
	}
	exp, err := pa.ExpectedModel()
	if err != nil {
		t.Fatal(err)
	}
	if got == ma || !slices.Equal(got.ModalityA(0), exp.ModalityA(0)) {
		t.Errorf("a past learning A: planning model %p (model %p), A %v, want the expected A %v", got, ma, got.ModalityA(0), exp.ModalityA(0))
	}
}
