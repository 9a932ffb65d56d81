package pomdp_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/pomdp"
)

// stepperModels are a noisy maze (compact A and B with a background above
// 0, one pass for children), the same maze without noise (sparse A and B:
// the dense numbers bit for bit) and the T-maze file.
func stepperModels(t *testing.T) map[string]*pomdp.Model {
	t.Helper()
	const maze = "7 8\nWWWWWWWW\nW.....EW\nW.WWWW.W\nW....W.W\nW.WW.W.W\nWS.....W\nWWWWWWWW\n"
	mz, err := envs.ParseMaze(strings.NewReader(maze))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*pomdp.Model{}
	for name, noise := range map[string]float64{"noisy maze": 0.1, "deterministic maze": 0} {
		if out[name], err = mz.POMDP(noise, envs.DefaultPrefPrecision); err != nil {
			t.Fatal(err)
		}
	}
	if out["tmaze"], err = pomdp.Load("../examples/pomdp/tmaze.json"); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestStepperMatchesDense compares Stepper's Propagate, StepCost and
// ChildCost with the dense kernels (pomdp.Propagate and pomdp.StepCost,
// every entry of A and B, math.Log) on random beliefs: within 1e-13
// (relative) on a noisy maze, bit for bit where A and B are sparse.
func TestStepperMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for name, m := range stepperModels(t) {
		exact := name != "noisy maze"
		st := pomdp.NewStepper(m)
		if st.OnePass() == exact {
			t.Errorf("%s: OnePass %v", name, st.OnePass())
		}
		ns := m.NumStates()
		prev := make([]float64, ns)
		got, want := make([]float64, ns), make([]float64, ns)
		for range 50 {
			sum := 0.0
			for s := range prev {
				prev[s] = rng.ExpFloat64()
				sum += prev[s]
			}
			for s := range prev {
				prev[s] /= sum
			}
			for u := range m.NumActions() {
				st.Propagate(got, prev, u)
				pomdp.Propagate(m, want, prev, u)
				for s := range got {
					if !near(got[s], want[s], exact) {
						t.Fatalf("%s: Propagate u=%d: [%d] %v, dense %v", name, u, s, got[s], want[s])
					}
				}
				r0, a0, _ := pomdp.StepCost(m, want, nil)
				r1, a1, _ := st.StepCost(want, nil)
				r2, a2, _ := st.ChildCost(prev, u, nil)
				for _, c := range [][2]float64{{r1, r0}, {a1, a0}, {r2, r0}, {a2, a0}} {
					if !near(c[0], c[1], exact) {
						t.Fatalf("%s: u=%d: risk %v %v, ambiguity %v %v, dense %v %v", name, u, r1, r2, a1, a2, r0, a0)
					}
				}
			}
		}
	}
}

func near(x, y float64, exact bool) bool {
	if exact {
		return math.Float64bits(x) == math.Float64bits(y)
	}
	return math.Abs(x-y) <= 1e-13*math.Abs(y)
}
