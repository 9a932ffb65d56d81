package btai_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/pomdp"
)

// detB is the B of cmd/arbor/testdata/btai/deterministic-b.json, in the
// flat layout B[(u*3+next)*3+prev]: action 0 keeps the state, action 1
// moves it from prev to (prev+1) mod 3. Every column has two hard zeros.
func detB() []float64 {
	b := make([]float64, 2*3*3)
	for p := range 3 {
		b[(0*3+p)*3+p] = 1
		b[(1*3+(p+1)%3)*3+p] = 1
	}
	return b
}

// detNext is the deterministic successor of state p under action u.
func detNext(u, p int) int { return (p + u) % 3 }

func detModel(t *testing.T, a, d []float64, no int) *pomdp.Model {
	t.Helper()
	c := make([]float64, no)
	for o := range c {
		c[o] = 1 / float64(no) // any C without zeros: costs stay finite
	}
	m, err := pomdp.New(pomdp.Spec{NumStates: 3, NumObs: no, NumActions: 2, A: a, B: detB(), C: c, D: d})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func oneHot(n, k int) []float64 {
	v := make([]float64, n)
	v[k] = 1
	return v
}

// checkDist fails if got and want differ by more than tol in any entry.
func checkDist(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	for i := range want {
		if math.IsNaN(got[i]) || math.Abs(got[i]-want[i]) > tol {
			t.Fatalf("%s = %v, want %v (±%g)", what, got, want, tol)
		}
	}
}

// TestDeterministicB: a POMDP whose B has hard zeros (deterministic
// transitions) used to make inference on the past fail ("invalid
// posterior ... all -Inf") and local VMP on the future fail, in both
// inference modes. With B (and, in the future, Ā) floored at e^-32 in the
// logarithms, the agent runs, and where mean-field inference is exact the
// belief is what exact filtering gives, by hand:
//
//   - known start, D = one-hot(1): exact filtering keeps the belief one-hot
//     on the deterministic path 1 -u-> (1+u) mod 3 -> ..., whatever is
//     observed (A = [[0.6, 0.9, 0.6], [0.4, 0.1, 0.4]], never zero, so
//     every observation is possible in every state);
//   - D = (0.2, 0.5, 0.3), o_0 = 0: Q(S_0) ∝ D ⊙ A[0,:] =
//     (0.12, 0.45, 0.18) / 0.75 = (0.16, 0.6, 0.24);
//   - A = identity (the observation reveals the state), D = (0.2, 0.5, 0.3):
//     the filtered belief is one-hot on the observed state at every step.
//
// In the planning tree below a one-hot root, the children's Q(S_I) are
// one-hot on detNext(u, root) in both modes (predictive exactly; VMP up to
// the floor: Q*(S_I) ∝ B_floor(.|root) · exp(Å Q(O_I)) puts at most
// e^-32 · e^(max ln-ratio of Ā) ≈ 1e-13 elsewhere). The floor moves
// probabilities by about e^-32 ≈ 1.3e-14 per entry, hence the tolerance
// 1e-9.
func TestDeterministicB(t *testing.T) {
	const tol = 1e-9
	ctx := context.Background()
	aWeak := []float64{0.6, 0.9, 0.6, 0.4, 0.1, 0.4}
	aID := []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}
	actions := []int{1, 1, 0, 1, 0, 1}
	for _, inf := range []btai.Inference{btai.VMP, btai.Predictive} {
		o := btai.DefaultOptions()
		o.Inference, o.Iterations = inf, 20

		// Known start: the belief follows the deterministic path.
		ag, err := btai.NewAgent(detModel(t, aWeak, oneHot(3, 1), 2), &o, nil)
		if err != nil {
			t.Fatal(err)
		}
		obs := []int{1, 0, 0, 1, 0, 1, 1} // arbitrary: A has no zeros
		if err := ag.Reset(ctx, obs[0]); err != nil {
			t.Fatalf("%v: Reset: %v", inf, err)
		}
		s := 1
		for i, u := range actions {
			if err := ag.Plan(ctx); err != nil {
				t.Fatalf("%v: Plan at step %d: %v", inf, i, err)
			}
			tr := ag.Tree()
			for c := range 2 {
				n := tr.Nodes[tr.Child(0, c)]
				checkDist(t, inf.String()+": Q(S) of root child", n.S.Probs(), oneHot(3, detNext(c, s)), tol)
			}
			if err := ag.Step(ctx, u, obs[i+1]); err != nil {
				t.Fatalf("%v: Step %d: %v", inf, i, err)
			}
			s = detNext(u, s)
			checkDist(t, inf.String()+": belief on the known path", ag.Belief(), oneHot(3, s), tol)
		}

		// Uncertain start: the first belief is D ⊙ A[o_0] normalised.
		ag, err = btai.NewAgent(detModel(t, aWeak, []float64{0.2, 0.5, 0.3}, 2), &o, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := ag.Reset(ctx, 0); err != nil {
			t.Fatal(err)
		}
		checkDist(t, inf.String()+": Q(S_0)", ag.Belief(), []float64{0.16, 0.6, 0.24}, 1e-12)
		if err := ag.Plan(ctx); err != nil {
			t.Fatalf("%v: Plan from an uncertain start: %v", inf, err)
		}

		// Revealing observations: one-hot on the observed state.
		ag, err = btai.NewAgent(detModel(t, aID, []float64{0.2, 0.5, 0.3}, 3), &o, nil)
		if err != nil {
			t.Fatal(err)
		}
		s = 2
		if err := ag.Reset(ctx, s); err != nil {
			t.Fatal(err)
		}
		for i, u := range actions {
			if err := ag.Plan(ctx); err != nil {
				t.Fatalf("%v: Plan at step %d (A = I): %v", inf, i, err)
			}
			s = detNext(u, s)
			if err := ag.Step(ctx, u, s); err != nil {
				t.Fatalf("%v: Step %d (A = I): %v", inf, i, err)
			}
			checkDist(t, inf.String()+": belief with A = I", ag.Belief(), oneHot(3, s), tol)
		}
	}
}

// TestDeterministicBEpisode runs whole episodes on the deterministic-B
// model of cmd/arbor/testdata/btai/deterministic-b.json (the model is also
// the true process), in both modes, with local and global inference: they
// must complete without error.
func TestDeterministicBEpisode(t *testing.T) {
	ctx := context.Background()
	m, err := pomdp.Load("../cmd/arbor/testdata/btai/deterministic-b.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, inf := range []btai.Inference{btai.VMP, btai.Predictive} {
		for _, global := range []bool{false, true} {
			o := btai.DefaultOptions()
			o.Inference, o.Iterations, o.GlobalInference = inf, 10, global
			if global {
				o.Past = pomdp.PastVMP // global VMP runs over the past and the tree
			}
			ag, err := btai.NewAgent(m, &o, nil)
			if err != nil {
				t.Fatal(err)
			}
			env := &pomdpEnv{m: m, s: 1}
			if _, err := agent.RunEpisode(ctx, ag, env, &agent.EpisodeSettings{MaxSteps: 8}); err != nil {
				t.Errorf("%v, global %v: %v", inf, global, err)
			}
		}
	}
}

// pomdpEnv is a deterministic-B POMDP used as the true process: it starts
// in state s and emits the most likely observation of each state.
type pomdpEnv struct {
	m    *pomdp.Model
	s, t int
}

func (e *pomdpEnv) obs() int {
	best := 0
	for o := range e.m.NumObs() {
		if e.m.A(o, e.s) > e.m.A(best, e.s) {
			best = o
		}
	}
	return best
}

func (e *pomdpEnv) Reset() int { e.t = 0; return e.obs() }

func (e *pomdpEnv) Step(u int) (int, error) {
	for n := range e.m.NumStates() {
		if e.m.B(u, n, e.s) == 1 {
			e.s = n
			break
		}
	}
	e.t++
	return e.obs(), nil
}

func (e *pomdpEnv) Done() bool { return false }

func (e *pomdpEnv) NumActions() int      { return e.m.NumActions() }
func (e *pomdpEnv) NumObservations() int { return e.m.NumObs() }

// TestConcentrationsCarryOver: with concentrations d in the model, the
// agent's D is a Dirichlet variable; after an episode its posterior is d +
// Q(S_0) (the expected counts, here by one step of learning: every entry
// grows and the total grows by exactly 1, the mass of one Q(S_0)), and the
// next episode starts from it: Reset makes it the prior, so that the
// second episode's posterior grows by another 1.
func TestConcentrationsCarryOver(t *testing.T) {
	m, err := pomdp.Load("../cmd/arbor/testdata/btai/tiny-pomdp.json")
	if err != nil {
		t.Fatal(err)
	}
	sp := m.Spec()
	sp.D, sp.ConcD = nil, []float64{1, 2, 3}
	if m, err = pomdp.New(sp); err != nil {
		t.Fatal(err)
	}
	o := btai.PresetPaper()
	o.Iterations = 5
	ag, err := btai.NewAgent(m, &o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := ag.Concentrations(); c.A[0] != nil || c.B[0] != nil || !slices.Equal(c.D[0], []float64{1, 2, 3}) {
		ca, cb, cd := c.A[0], c.B[0], c.D[0]
		t.Fatalf("before the first episode: %v %v %v, want nil nil [1 2 3]", ca, cb, cd)
	}
	env := pomdp.NewProcess(m, rand.New(rand.NewPCG(1, 2)))
	sum := func(x []float64) float64 { return x[0] + x[1] + x[2] }
	for ep, want := range []float64{7, 8} {
		if _, err := agent.RunEpisode(context.Background(), ag, env, &agent.EpisodeSettings{MaxSteps: 1}); err != nil {
			t.Fatal(err)
		}
		cd := ag.Concentrations().D[0]
		if math.Abs(sum(cd)-want) > 1e-9 {
			t.Errorf("episode %d: d = %v sums to %v, want %v", ep+1, cd, sum(cd), want)
		}
	}
}
