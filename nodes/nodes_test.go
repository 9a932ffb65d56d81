package nodes_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/messages"
	"github.com/arbor-ai/arbor/nodes"
	"github.com/arbor-ai/arbor/nodes/nodetest"
)

func randDist(rng *rand.Rand, n int) []float64 {
	p := make([]float64, n)
	s := 0.0
	for i := range p {
		p[i] = 0.05 + rng.Float64()
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

func randColumns(rng *rand.Rand, shape []int) []float64 {
	cols := 1
	for _, s := range shape[1:] {
		cols *= s
	}
	m := make([]float64, shape[0]*cols)
	for c := range cols {
		col := randDist(rng, shape[0])
		for r := range shape[0] {
			m[r*cols+c] = col[r]
		}
	}
	return m
}

func expLog(rng *rand.Rand, shape []int) []float64 {
	n := 1
	for _, s := range shape {
		n *= s
	}
	a := make([]float64, n)
	for i := range a {
		a[i] = 0.2 + 3*rng.Float64()
	}
	return expfam.DirichletTensor{Alpha: a, Shape: shape}.ExpectedLog(nil)
}

// TestMessagesMatchFiniteDifferences runs nodetest on every built-in node
// (Categorical with literal and Dirichlet p; Transition with 1, 2 and 3
// parents, literal and Dirichlet-distributed; the Dirichlet prior over a
// vector and a tensor; the Gamma prior; Softmax's approximate rules):
// each message must equal the gradient of -AverageEnergy with respect to the
// receiving neighbour's expected statistics.
func TestMessagesMatchFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cat, _ := nodes.NewCategorical(randDist(rng, 4))
	catD, _ := nodes.NewCategoricalDirichlet(4)
	tr1, _ := nodes.NewTransition(randColumns(rng, []int{3, 5}), []int{3, 5})
	tr2, _ := nodes.NewTransition(randColumns(rng, []int{3, 2, 4}), []int{3, 2, 4})
	tr3, _ := nodes.NewTransition(randColumns(rng, []int{2, 3, 2, 3}), []int{2, 3, 2, 3})
	trD1, _ := nodes.NewTransitionDirichlet([]int{3, 4})
	trD, _ := nodes.NewTransitionDirichlet([]int{3, 2, 2})
	trD3, _ := nodes.NewTransitionDirichlet([]int{2, 2, 3, 2})
	dir, _ := nodes.NewDirichlet([]float64{0.5, 2, 3, 1, 1, 4}, []int{3, 2})
	dirVec, _ := nodes.NewDirichlet([]float64{0.3, 7, 1.5}, []int{3})
	gam, _ := nodes.NewGamma(2, 3)
	soft, _ := nodes.NewSoftmax([]float64{1.5, 0.2, 3, 0.7})
	gstats := expfam.Gamma{Shape: 2.5, Rate: 1.5}.ExpectedStats(nil)
	cases := []struct {
		name  string
		f     nodetest.Factor
		stats [][]float64
	}{
		{"categorical", cat, [][]float64{randDist(rng, 4)}},
		{"categorical-dirichlet", catD, [][]float64{randDist(rng, 4), expLog(rng, []int{4})}},
		{"transition", tr1, [][]float64{randDist(rng, 3), randDist(rng, 5)}},
		{"transition-2-parents", tr2, [][]float64{randDist(rng, 3), randDist(rng, 2), randDist(rng, 4)}},
		{"transition-3-parents", tr3, [][]float64{randDist(rng, 2), randDist(rng, 3), randDist(rng, 2), randDist(rng, 3)}},
		{"transition-dirichlet-1-parent", trD1, [][]float64{randDist(rng, 3), randDist(rng, 4), expLog(rng, []int{3, 4})}},
		{"transition-dirichlet-2-parents", trD, [][]float64{randDist(rng, 3), randDist(rng, 2), randDist(rng, 2), expLog(rng, []int{3, 2, 2})}},
		{"transition-dirichlet-3-parents", trD3, [][]float64{randDist(rng, 2), randDist(rng, 2), randDist(rng, 3), randDist(rng, 2), expLog(rng, []int{2, 2, 3, 2})}},
		{"dirichlet-tensor", dir, [][]float64{expLog(rng, []int{3, 2})}},
		{"dirichlet-vector", dirVec, [][]float64{expLog(rng, []int{3})}},
		{"gamma", gam, [][]float64{gstats}},
		{"softmax", soft, [][]float64{randDist(rng, 4), gstats}},
	}
	for _, tc := range cases {
		// Softmax's energy is nonlinear in E[gamma]: central differences have
		// an O(h^2) error there, hence the looser tolerance.
		if err := nodetest.CheckMessages(tc.f, tc.stats, 1e-5, 1e-6); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// TestAverageEnergyClosedForms checks each node's E_q[-ln f] against the
// textbook expression written out by hand.
func TestAverageEnergyClosedForms(t *testing.T) {
	// Categorical p = (0.5, 0.25, 0.25), q = (0.2, 0.3, 0.5):
	// E[-ln p] = -(0.2 ln 0.5 + 0.8 ln 0.25) = 0.2 ln 2 + 0.8 ln 4 = ln 2 (0.2 + 1.6) = 1.8 ln 2.
	cat, _ := nodes.NewCategorical([]float64{0.5, 0.25, 0.25})
	if got, want := cat.AverageEnergy([][]float64{{0.2, 0.3, 0.5}}), 1.8*math.Ln2; math.Abs(got-want) > 1e-14 {
		t.Errorf("categorical: %v, want %v", got, want)
	}
	// Gamma(2, 3) prior, q(g) = Gamma(4, 2): E[-ln p(g)] =
	// -[(a-1) E ln g - b E g + a ln b - ln Γ(a)] with E ln g = ψ(4) - ln 2,
	// E g = 2: -(ψ(4) - ln 2) + 6 - 2 ln 3 + ln Γ(2) = -(ψ(4) - ln 2) + 6 - 2 ln 3.
	// ψ(4) = 1 + 1/2 + 1/3 - γ_Euler.
	psi4 := 1 + 0.5 + 1.0/3 - 0.5772156649015329
	gam, _ := nodes.NewGamma(2, 3)
	st := expfam.Gamma{Shape: 4, Rate: 2}.ExpectedStats(nil)
	// gonum's mathext.Digamma is accurate to about 5e-11 absolute (ψ(1) is
	// off by 5.3e-11), hence the tolerance.
	if got, want := gam.AverageEnergy([][]float64{st}), -(psi4-math.Ln2)+6-2*math.Log(3); math.Abs(got-want) > 1e-9 {
		t.Errorf("gamma: %v, want %v", got, want)
	}
	// Dirichlet prior Dir(1, 1) (uniform on the simplex of 2): density 1, so
	// E[-ln p] = -ln Γ(2) = 0 whatever q.
	dir, _ := nodes.NewDirichlet([]float64{1, 1}, []int{2})
	if got := dir.AverageEnergy([][]float64{expLog(rand.New(rand.NewPCG(1, 1)), []int{2})}); math.Abs(got) > 1e-14 {
		t.Errorf("dirichlet(1,1): %v, want 0", got)
	}
	// Softmax with gamma known exactly (huge shape, fixed mean 2): the
	// first-order expansion is exact at a point mass, so the energy equals
	// E_q[-ln softmax(-2 G)_pi].
	soft, _ := nodes.NewSoftmax([]float64{1, 2})
	q := []float64{0.25, 0.75}
	logp0 := -2.0 - math.Log(math.Exp(-2)+math.Exp(-4))
	logp1 := -4.0 - math.Log(math.Exp(-2)+math.Exp(-4))
	want := -(0.25*logp0 + 0.75*logp1)
	if got := soft.AverageEnergy([][]float64{q, {math.Log(2), 2}}); math.Abs(got-want) > 1e-12 {
		t.Errorf("softmax: %v, want %v", got, want)
	}
}

func TestTransitionMessagesKnownValues(t *testing.T) {
	// B = [[0.9, 0.2], [0.1, 0.8]] (columns = previous state). With
	// q(prev) = (1, 0) the message to next is (ln 0.9, ln 0.1); with
	// q(next) = (0.5, 0.5) the message to prev is
	// (0.5 ln 0.9 + 0.5 ln 0.1, 0.5 ln 0.2 + 0.5 ln 0.8) (paper section 6.2).
	tr, err := nodes.NewTransition([]float64{0.9, 0.2, 0.1, 0.8}, []int{2, 2})
	if err != nil {
		t.Fatal(err)
	}
	msg := make([]float64, 2)
	if err := tr.Message(msg, nodes.TransitionOut, [][]float64{{0.5, 0.5}, {1, 0}}); err != nil {
		t.Fatal(err)
	}
	if msg[0] != math.Log(0.9) || msg[1] != math.Log(0.1) {
		t.Errorf("to out: %v", msg)
	}
	if err := tr.Message(msg, 1, [][]float64{{0.5, 0.5}, {1, 0}}); err != nil {
		t.Fatal(err)
	}
	want := []float64{0.5*math.Log(0.9) + 0.5*math.Log(0.1), 0.5*math.Log(0.2) + 0.5*math.Log(0.8)}
	for i := range want {
		if math.Abs(msg[i]-want[i]) > 1e-15 {
			t.Errorf("to in: %v, want %v", msg, want)
		}
	}
	// Dirichlet matrix: the message is the outer product q(out) ⊗ q(in),
	// the expected counts added to the concentrations (section 6.2, Q*(A)).
	trD, _ := nodes.NewTransitionDirichlet([]int{2, 2})
	counts := make([]float64, 4)
	if err := trD.Message(counts, trD.MatrixInterface(), [][]float64{{0, 1}, {0.25, 0.75}, nil}); err != nil {
		t.Fatal(err)
	}
	if want := []float64{0, 0, 0.25, 0.75}; counts[0] != want[0] || counts[1] != want[1] || counts[2] != want[2] || counts[3] != want[3] {
		t.Errorf("to matrix: %v, want %v", counts, want)
	}
}

func TestConstructorErrors(t *testing.T) {
	if _, err := nodes.NewCategorical([]float64{0.5, 0.6}); err == nil {
		t.Error("categorical: p summing to 1.1 accepted")
	}
	if _, err := nodes.NewTransition([]float64{0.5, 0.5, 0.4, 0.5}, []int{2, 2}); err == nil {
		t.Error("transition: column summing to 0.9 accepted")
	}
	if _, err := nodes.NewTransition([]float64{1, 1}, []int{2}); err == nil {
		t.Error("transition without parents accepted")
	}
	if _, err := nodes.NewDirichlet([]float64{1, -1}, []int{2}); err == nil {
		t.Error("dirichlet: negative concentration accepted")
	}
	if _, err := nodes.NewGamma(0, 1); err == nil {
		t.Error("gamma: shape 0 accepted")
	}
	if _, err := nodes.NewSoftmax([]float64{1, math.NaN()}); err == nil {
		t.Error("softmax: NaN value accepted")
	}
}

func TestNoRuleForUnknownInterface(t *testing.T) {
	soft, _ := nodes.NewSoftmax([]float64{1, 2})
	err := soft.Message(make([]float64, 2), 5, [][]float64{{0.5, 0.5}, {0, 1}})
	var nr *messages.NoRuleError
	if !errors.As(err, &nr) || nr.Factor != "softmax" || len(nr.Rules) != 2 {
		t.Errorf("got %v, want a NoRuleError listing out and precision", err)
	}
}
