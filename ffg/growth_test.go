package ffg_test

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"weak"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/nodes"
	"github.com/arbor-ai/arbor/schedule"
)

// hmm appends steps to an HMM with fixed prior, transition and emission
// matrices and returns the latent variables added.
type hmm struct {
	k, o    int
	d, b, a []float64
	obs     []int
	g       *ffg.Graph
	states  []*ffg.Variable
}

func newHMM(rng *rand.Rand, k, o, steps int) *hmm {
	h := &hmm{k: k, o: o, d: randDist(rng, k), b: randColumns(rng, k, k), a: randColumns(rng, o, k), g: ffg.New()}
	for range steps {
		h.obs = append(h.obs, rng.IntN(o))
	}
	return h
}

func (h *hmm) grow(t *testing.T, upto int) []*ffg.Variable {
	t.Helper()
	var added []*ffg.Variable
	for len(h.states) < upto {
		i := len(h.states)
		s, err := h.g.AddVariable("", expfam.CategoricalFamily, h.k)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			c, _ := nodes.NewCategorical(h.d)
			if _, err := h.g.AddFactor("", c, s); err != nil {
				t.Fatal(err)
			}
		} else {
			tr, _ := nodes.NewTransition(h.b, []int{h.k, h.k})
			if _, err := h.g.AddFactor("", tr, s, h.states[i-1]); err != nil {
				t.Fatal(err)
			}
		}
		o, _ := h.g.AddVariable("", expfam.CategoricalFamily, h.o)
		if err := o.Observe(h.obs[i]); err != nil {
			t.Fatal(err)
		}
		em, _ := nodes.NewTransition(h.a, []int{h.o, h.k})
		if _, err := h.g.AddFactor("", em, o, s); err != nil {
			t.Fatal(err)
		}
		h.states = append(h.states, s)
		added = append(added, s, o)
	}
	return added
}

// tight runs until F stops changing in floating point: |ΔF| < tol only
// bounds the posteriors' distance to the fixed point by about sqrt(tol),
// since F is quadratic near its minimum.
var tight = &schedule.Settings{Iterations: 5000, Tolerance: 1e-300}

func posteriors(vs []*ffg.Variable) [][]float64 {
	out := make([][]float64, len(vs))
	for i, v := range vs {
		out[i] = append([]float64(nil), v.Probs()...)
	}
	return out
}

func maxDiff(a, b [][]float64) float64 {
	d := 0.0
	for i := range a {
		for j := range a[i] {
			d = math.Max(d, math.Abs(a[i][j]-b[i][j]))
		}
	}
	return d
}

func TestGrowthMatchesBuildingFirst(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(10) {
		rng := rand.New(rand.NewPCG(seed, 99))
		full := newHMM(rng, 3, 2, 6)
		// The same model, built in one go.
		whole := *full
		whole.g = ffg.New()
		whole.states = nil
		whole.grow(t, 6)
		if _, err := schedule.Run(ctx, whole.g, tight); err != nil {
			t.Fatal(err)
		}
		// Grown: 3 steps, converge, add 3 steps, local inference on the new
		// ones, then global inference.
		full.grow(t, 3)
		if _, err := schedule.Run(ctx, full.g, tight); err != nil {
			t.Fatal(err)
		}
		added := full.grow(t, 6)
		if _, err := schedule.Local(ctx, full.g, added, tight); err != nil {
			t.Fatal(err)
		}
		if _, err := schedule.Run(ctx, full.g, tight); err != nil {
			t.Fatal(err)
		}
		polish(t, whole.g)
		polish(t, full.g)
		if d := maxDiff(posteriors(whole.states), posteriors(full.states)); d > 1e-9 {
			t.Errorf("seed %d: grown and whole graphs differ by %g", seed, d)
		}
		if d := math.Abs(whole.g.FreeEnergy() - full.g.FreeEnergy()); d > 1e-9 {
			t.Errorf("seed %d: F differs by %g", seed, d)
		}
	}
}

func TestRemovingSubtreeRestoresPosteriors(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(10) {
		rng := rand.New(rand.NewPCG(seed, 7))
		h := newHMM(rng, 3, 3, 4)
		h.grow(t, 4)
		if _, err := schedule.Run(ctx, h.g, tight); err != nil {
			t.Fatal(err)
		}
		polish(t, h.g)
		before := posteriors(h.states)
		fBefore := h.g.FreeEnergy()
		nv, nf := len(h.g.Variables()), len(h.g.Factors())
		// A planning-like sub-tree below the last state: two branches of depth
		// two, each with a predicted observation variable.
		var sub []*ffg.Variable
		var branch func(parent *ffg.Variable, depth int)
		branch = func(parent *ffg.Variable, depth int) {
			if depth == 0 {
				return
			}
			for range 2 {
				s, _ := h.g.AddVariable("", expfam.CategoricalFamily, h.k)
				tr, _ := nodes.NewTransition(randColumns(rng, h.k, h.k), []int{h.k, h.k})
				if _, err := h.g.AddFactor("", tr, s, parent); err != nil {
					t.Fatal(err)
				}
				o, _ := h.g.AddVariable("", expfam.CategoricalFamily, h.o)
				em, _ := nodes.NewTransition(h.a, []int{h.o, h.k})
				if _, err := h.g.AddFactor("", em, o, s); err != nil {
					t.Fatal(err)
				}
				sub = append(sub, s, o)
				branch(s, depth-1)
			}
		}
		branch(h.states[len(h.states)-1], 2)
		if _, err := schedule.Run(ctx, h.g, tight); err != nil {
			t.Fatal(err)
		}
		h.g.RemoveVariables(sub...)
		if len(h.g.Variables()) != nv || len(h.g.Factors()) != nf {
			t.Fatalf("after removal: %d variables, %d factors; want %d, %d", len(h.g.Variables()), len(h.g.Factors()), nv, nf)
		}
		if _, err := schedule.Run(ctx, h.g, tight); err != nil {
			t.Fatal(err)
		}
		polish(t, h.g)
		if d := maxDiff(before, posteriors(h.states)); d > 1e-9 {
			t.Errorf("seed %d: posteriors after removal differ by %g", seed, d)
		}
		if d := math.Abs(fBefore - h.g.FreeEnergy()); d > 1e-9 {
			t.Errorf("seed %d: F after removal differs by %g", seed, d)
		}
	}
}

// TestRemovedSubgraphIsCollectable checks that removed variables become
// garbage. The case that once leaked: a surviving variable (the present
// state) whose edge list outgrew its inline storage while planning children
// were attached, after which its predecessor (bound through its first edge)
// is removed. A stale inline copy of that first edge kept the predecessor,
// and through it the whole past, alive.
func TestRemovedSubgraphIsCollectable(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	h := newHMM(rng, 3, 2, 3)
	h.grow(t, 3)
	present := h.states[2]
	var children []*ffg.Variable
	for range 6 { // more children than the inline edge buffer holds
		s, _ := h.g.AddVariable("", expfam.CategoricalFamily, h.k)
		tr, _ := nodes.NewTransition(randColumns(rng, h.k, h.k), []int{h.k, h.k})
		if _, err := h.g.AddFactor("", tr, s, present); err != nil {
			t.Fatal(err)
		}
		children = append(children, s)
	}
	wps := []weak.Pointer[ffg.Variable]{weak.Make(h.states[0]), weak.Make(h.states[1]), weak.Make(children[0])}
	h.g.RemoveVariables(children...)
	h.g.RemoveVariables(h.states[0], h.states[1])
	children, h.states = nil, append([]*ffg.Variable(nil), h.states[2:]...)
	runtime.GC()
	runtime.GC()
	for i, wp := range wps {
		if wp.Value() != nil {
			t.Errorf("removed variable %d is still reachable", i)
		}
	}
	runtime.KeepAlive(present)
	runtime.KeepAlive(h.g)
}
