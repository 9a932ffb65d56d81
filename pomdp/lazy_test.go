package pomdp

import (
	"math"
	"sync"
	"testing"
)

// lazyModel is a two-state, two-observation model whose agent has
// concentrations a = [[9, 2], [1, 8]] (rows o, columns s) and whose world
// likelihood is A = 1/2 everywhere.
func lazyModel(t *testing.T) *Model {
	t.Helper()
	m, err := New(Spec{NumStates: 2, NumObs: 2, NumActions: 1,
		A: []float64{0.5, 0.5, 0.5, 0.5}, ConcA: []float64{9, 2, 1, 8},
		B: []float64{1, 0, 0, 1}, C: []float64{0.5, 0.5}, D: []float64{0.5, 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestDerivedOnFirstUse: a new model holds neither the novelty weights nor
// ln A; many goroutines asking for them at once (go test -race) all get
// the same arrays, computed once, with the numbers of the formulas.
func TestDerivedOnFirstUse(t *testing.T) {
	m := lazyModel(t)
	if m.lazy.w != nil || m.lazy.logA != nil {
		t.Fatalf("a new model holds the novelty weights (%v) or ln A (%v)", m.lazy.w, m.lazy.logA)
	}
	// W = 1/2 (1/a - 1/a0), a0 = 10 for both columns:
	// 1/2 (1/9 - 1/10) = 1/180, 1/2 (1/2 - 1/10) = 0.2,
	// 1/2 (1/1 - 1/10) = 0.45, 1/2 (1/8 - 1/10) = 0.0125.
	wantW := []float64{1.0 / 180, 0.2, 0.45, 0.0125}
	const g = 8
	ws := make([][]float64, g)
	novs := make([]float64, g)
	posts := make([][]float64, g)
	var wg sync.WaitGroup
	for i := range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws[i] = m.NoveltyWeights()
			novs[i] = Novelty(m, []float64{0.25, 0.75})
			p, err := StatePosterior(nil, m, 1)
			if err != nil {
				t.Error(err)
			}
			posts[i] = p
		}()
	}
	wg.Wait()
	// Novelty with qs = (1/4, 3/4): q(o) = A qs = (1/2, 1/2), and
	// Σ_o q(o) Σ_s W[o,s] qs[s] = 1/2 (1/720 + 0.15) + 1/2 (0.1125 + 0.009375).
	wantNov := 0.5*(1.0/720+0.15) + 0.5*(0.1125+0.009375)
	for i := range g {
		if &ws[i][0] != &ws[0][0] {
			t.Errorf("goroutine %d got another array of novelty weights", i)
		}
		for j, w := range wantW {
			if math.Abs(ws[i][j]-w) > 1e-15 {
				t.Errorf("goroutine %d: W[%d] = %v, want %v", i, j, ws[i][j], w)
			}
		}
		if math.Abs(novs[i]-wantNov) > 1e-15 {
			t.Errorf("goroutine %d: novelty %v, want %v", i, novs[i], wantNov)
		}
		// D and A uniform: the posterior after any observation is uniform.
		if math.Abs(posts[i][0]-0.5) > 1e-15 || math.Abs(posts[i][1]-0.5) > 1e-15 {
			t.Errorf("goroutine %d: posterior %v, want [0.5 0.5]", i, posts[i])
		}
	}
}

// TestDerivedNotSharedByCopies: the models made from a model's value
// (ScaleModel with other concentrations, AgentView with A = E[a]) compute
// their own novelty weights and ln A, even after the original computed
// its own.
func TestDerivedNotSharedByCopies(t *testing.T) {
	m := lazyModel(t)
	w := m.NoveltyWeights()
	if _, err := StatePosterior(nil, m, 0); err != nil {
		t.Fatal(err)
	}
	s, err := ScaleModel(m, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	// a -> 2a halves W = 1/2 (1/a - 1/a0).
	for j, x := range s.NoveltyWeights() {
		if math.Abs(x-w[j]/2) > 1e-15 {
			t.Errorf("ScaleModel(conc 2): W[%d] = %v, want %v", j, x, w[j]/2)
		}
	}
	v, err := m.AgentView()
	if err != nil {
		t.Fatal(err)
	}
	// E[a] has row o = 0 (9/10, 2/10); D uniform: after o = 0 the posterior
	// is (0.9, 0.2)/1.1, where the world's A = 1/2 gives (1/2, 1/2).
	p, err := StatePosterior(nil, v, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0.9 / 1.1, 0.2 / 1.1}; math.Abs(p[0]-want[0]) > 1e-12 || math.Abs(p[1]-want[1]) > 1e-12 {
		t.Errorf("AgentView: posterior %v, want %v", p, want)
	}
	if p, _ := StatePosterior(nil, m, 0); p[0] != 0.5 {
		t.Errorf("the original model's posterior changed to %v", p)
	}
}
