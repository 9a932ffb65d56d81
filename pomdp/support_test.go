package pomdp_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/pomdp"
)

// TestStepCostOnSameBits: on sharp and spread beliefs (random zeros in
// every factor, one-hot factors, a factor at zero everywhere but one
// state), StepCostOn over the belief's support gives StepCost's risk,
// ambiguity and novelty bit for bit, on models of one factor and of
// several with modalities over two and three factors, with and without
// novelty weights; a support given by SetStates gives the same.
func TestStepCostOnSameBits(t *testing.T) {
	models := map[string]*pomdp.Model{}
	for _, path := range []string{"../examples/pomdp/tmaze.json", "../examples/pomdp/cue-bandit-learn.json", "../examples/pomdp/foraging.json", "../examples/pomdp/si-maze.json"} {
		m, err := pomdp.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		models[path] = m
	}
	three, err := pomdp.Load("testdata/three-factors.json")
	if err != nil {
		t.Fatal(err)
	}
	models["three factors"] = three
	rng := rand.New(rand.NewPCG(1, 2))
	var sup pomdp.Support
	for name, m := range models {
		ws := [][]float64{nil}
		if w := m.NoveltyWeights(); w != nil {
			ws = append(ws, w)
		}
		sizes := make([]int, m.NumFactors())
		for f := range sizes {
			sizes[f] = m.FactorSize(f)
		}
		for trial := range 300 {
			qs := make([]float64, 0, m.NumStates())
			for f, ns := range sizes {
				q := make([]float64, ns)
				switch (trial + f) % 3 {
				case 0: // one-hot
					q[rng.IntN(ns)] = 1
				case 1: // random zeros
					sum := 0.0
					for s := range q {
						if rng.IntN(2) == 0 {
							q[s] = rng.Float64()
							sum += q[s]
						}
					}
					if sum == 0 {
						q[0], sum = 1, 1
					}
					for s := range q {
						q[s] /= sum
					}
				default: // spread
					sum := 0.0
					for s := range q {
						q[s] = rng.Float64() + 1e-3
						sum += q[s]
					}
					for s := range q {
						q[s] /= sum
					}
				}
				qs = append(qs, q...)
			}
			sup.Set(m, qs)
			// SetStates from the lists of non-zero states: the same sums.
			states := make([][]int32, len(sizes))
			off := 0
			for f, ns := range sizes {
				for s := range ns {
					if qs[off+s] != 0 {
						states[f] = append(states[f], int32(s))
					}
				}
				off += ns
			}
			var listed pomdp.Support
			listed.SetStates(m, states)
			for _, w := range ws {
				c2, c1 := cost(pomdp.StepCostOn(m, qs, w, &listed)), cost(pomdp.StepCostOn(m, qs, w, &sup))
				if !sameCost(c2, c1) {
					t.Fatalf("%s, belief %v: with SetStates %v, with Set %v", name, qs, c2, c1)
				}
			}
			for _, w := range ws {
				c0, c1 := cost(pomdp.StepCost(m, qs, w)), cost(pomdp.StepCostOn(m, qs, w, &sup))
				if !sameCost(c0, c1) {
					t.Fatalf("%s, belief %v: StepCostOn %v, StepCost %v", name, qs, c1, c0)
				}
			}
		}
	}
}

// TestStepCostOnAllocs: no allocation once the support's memory is
// grown.
func TestStepCostOnAllocs(t *testing.T) {
	m, err := pomdp.Load("../examples/pomdp/si-maze.json")
	if err != nil {
		t.Fatal(err)
	}
	qs := make([]float64, m.NumStates())
	qs[3] = 1
	var sup pomdp.Support
	sup.Set(m, qs)
	if n := testing.AllocsPerRun(100, func() {
		sup.Set(m, qs)
		pomdp.StepCostOn(m, qs, nil, &sup)
	}); n != 0 {
		t.Errorf("%v allocations per call, want 0", n)
	}
}

// TestStepCostOnSharpBelief: a belief sure of one state is scored from
// that state's column alone (the model keeps its risk), with StepCost's
// bits. Model: one factor of four states, one modality of four outcomes
// with columns A(.|0) = (1, 0, 0, 0), A(.|1) = (0.5, 0.5, 0, 0), A(.|2) =
// (0.2, 0.3, 0.5, 0), A(.|3) = (0, 0, 0.5, 0.5) and C = (0.25, 0.7, 0.05,
// 0): by hand, sure of state s,
//
//	risk = Σ_o A(o|s) (ln A(o|s) − ln C(o)),  ambiguity = −Σ_o A(o|s) ln A(o|s),
//
// so state 0: risk = ln 4, ambiguity 0; state 1: risk = 0.5 (ln 0.5 −
// ln 0.25) + 0.5 (ln 0.5 − ln 0.7) = 0.5 ln (10/7), ambiguity = ln 2;
// state 2 (three terms, whose order shows in the last bit): risk = 0.2 ln
// (0.2/0.25) + 0.3 ln (0.3/0.7) + 0.5 ln (0.5/0.05) = 0.2 ln 0.8 + 0.3 ln
// (3/7) + 0.5 ln 10, ambiguity = −(0.2 ln 0.2 + 0.3 ln 0.3 + 0.5 ln 0.5);
// state 3: risk = +Inf (outcome 3 has C = 0 and probability 0.5),
// ambiguity = ln 2. A belief of one state at a value other than 1 (not
// normalised, as a planner's scratch may be) and a spread belief are
// scored by the sums over the support, also StepCost's bits. On models
// whose modalities read two and three factors (the T-maze, foraging, the
// cue bandit, the three-factor model of TestStepCostOnSameBits), every
// joint state believed with certainty gives StepCost's bits.
func TestStepCostOnSharpBelief(t *testing.T) {
	m, err := pomdp.Parse([]byte(`{"factors": [{"name": "x", "states": ["a", "b", "c", "d"], "D": [0.1, 0.2, 0.3, 0.4],
	  "B": [[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]]}],
	  "modalities": [{"name": "o", "outcomes": ["p", "q", "r", "t"], "depends_on": ["x"],
	    "A": [[1, 0.5, 0.2, 0], [0, 0.5, 0.3, 0], [0, 0, 0.5, 0.5], [0, 0, 0, 0.5]], "C": [0.25, 0.7, 0.05, 0]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]float64{
		{math.Log(4), 0},
		{0.5 * math.Log(10.0/7), math.Log(2)},
		{0.2*math.Log(0.8) + 0.3*math.Log(3.0/7) + 0.5*math.Log(10), -(0.2*math.Log(0.2) + 0.3*math.Log(0.3) + 0.5*math.Log(0.5))},
		{math.Inf(1), math.Log(2)},
	}
	var sup pomdp.Support
	for s, w := range want {
		qs := make([]float64, 4)
		qs[s] = 1
		sup.Set(m, qs)
		risk, amb, nov := pomdp.StepCostOn(m, qs, nil, &sup)
		if !closeOrInf(risk, w[0]) || math.Abs(amb-w[1]) > 1e-15 || nov != 0 {
			t.Errorf("sure of state %d: risk %v, ambiguity %v, novelty %v; want %v, %v, 0", s, risk, amb, nov, w[0], w[1])
		}
		if c0 := cost(pomdp.StepCost(m, qs, nil)); !sameCost(c0, cost(risk, amb, nov)) {
			t.Errorf("sure of state %d: StepCostOn %v, StepCost %v", s, cost(risk, amb, nov), c0)
		}
	}
	for _, qs := range [][]float64{{0, 0.75, 0, 0}, {0.5, 0.5, 0, 0}, {0, 0.25, 0.75, 0}, {0, 0, 0.5, 0.5}} {
		sup.Set(m, qs)
		c1, c0 := cost(pomdp.StepCostOn(m, qs, nil, &sup)), cost(pomdp.StepCost(m, qs, nil))
		if !sameCost(c0, c1) {
			t.Errorf("belief %v: StepCostOn %v, StepCost %v", qs, c1, c0)
		}
	}
	for _, path := range []string{"../examples/pomdp/tmaze.json", "../examples/pomdp/foraging.json", "../examples/pomdp/cue-bandit-learn.json", "testdata/three-factors.json"} {
		m, err := pomdp.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		n := 1
		for f := range m.NumFactors() {
			n *= m.FactorSize(f)
		}
		for j := range n {
			// Joint state j, the last factor's state fastest.
			qs := make([]float64, m.NumStates())
			off, rest := m.NumStates(), j
			for f := m.NumFactors() - 1; f >= 0; f-- {
				ns := m.FactorSize(f)
				off -= ns
				qs[off+rest%ns] = 1
				rest /= ns
			}
			sup.Set(m, qs)
			c1, c0 := cost(pomdp.StepCostOn(m, qs, nil, &sup)), cost(pomdp.StepCost(m, qs, nil))
			if !sameCost(c0, c1) || c0[2] != 0 || c1[2] != 0 {
				t.Errorf("%s, belief %v: StepCostOn %v, StepCost %v", path, qs, c1, c0)
			}
		}
	}
}

// cost holds a step's risk, ambiguity and novelty, as StepCost and
// StepCostOn return them.
func cost(risk, amb, nov float64) [3]float64 { return [3]float64{risk, amb, nov} }

// sameCost reports whether x and y have the same bits, term by term.
func sameCost(x, y [3]float64) bool {
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
			return false
		}
	}
	return true
}

// closeOrInf reports whether x is within 1e-15 of want, or both are the
// same infinity.
func closeOrInf(x, want float64) bool {
	if math.IsInf(want, 0) {
		return x == want
	}
	return math.Abs(x-want) <= 1e-15
}
