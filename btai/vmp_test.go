package btai_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/schedule"
)

// TestVMPMatchesSchedule checks the hand-written local VMP of new future
// nodes against the generic engine: for every node of a planned tree, the
// node's S_I and O_I are reset to the prediction and schedule.Local (VMP
// messages derived by the nodes package from the factors' multilinear
// forms) is run on them with the same settings; the two posteriors must
// agree to 1e-7. Both run the same coordinate ascent from the same start
// and stop when |ΔF| < 1e-15, but compute F differently (rounding), so they
// may stop a sweep apart; F is quadratic in the distance to the fixed
// point, so either is within about sqrt(1e-15) ≈ 3e-8 of it. Random
// POMDPs, several sizes; leaves only (see below).
func TestVMPMatchesSchedule(t *testing.T) {
	ctx := context.Background()
	for i, dims := range [][3]int{{2, 2, 2}, {3, 4, 2}, {5, 3, 3}, {7, 6, 4}} {
		rng := rand.New(rand.NewPCG(uint64(i), 7))
		m := randPOMDP(t, rng, dims[0], dims[1], dims[2])
		o := btai.DefaultOptions()
		o.Iterations, o.VMPIterations, o.VMPTolerance = 25, 1000, 1e-15
		ag, err := btai.NewAgent(m, &o, rng)
		if err != nil {
			t.Fatal(err)
		}
		if err := ag.Reset(ctx, 0); err != nil {
			t.Fatal(err)
		}
		if err := ag.Plan(ctx); err != nil {
			t.Fatal(err)
		}
		tr := ag.Tree()
		ns, no := m.NumStates(), m.NumObs()
		leaves := 0
		for k := 1; k < len(tr.Nodes); k++ {
			n := tr.Nodes[k]
			if !n.Leaf() {
				// Once expanded, S_I also receives its children's messages
				// in the graph (the sum over ch_I of the paper's Q*(S_I)),
				// which local inference at expansion time did not have.
				continue
			}
			leaves++
			gotS := append([]float64(nil), n.S.Probs()...)
			gotO := append([]float64(nil), n.O.Probs()...)
			// Prediction: Q(S) = B_u Q(parent), Q(O) = A Q(S).
			qp := tr.Nodes[n.Parent].S.Probs()
			ps, po := make([]float64, ns), make([]float64, no)
			for nx := range ns {
				for p := range ns {
					ps[nx] += m.B(n.Action, nx, p) * qp[p]
				}
			}
			for ob := range no {
				for s := range ns {
					po[ob] += m.A(ob, s) * ps[s]
				}
			}
			if err := n.S.SetProbs(ps); err != nil {
				t.Fatal(err)
			}
			if err := n.O.SetProbs(po); err != nil {
				t.Fatal(err)
			}
			if _, err := schedule.Local(ctx, ag.Graph(), []*ffg.Variable{n.S, n.O}, &schedule.Settings{Iterations: 1000, Tolerance: 1e-15}); err != nil {
				t.Fatal(err)
			}
			for s := range ns {
				if d := math.Abs(n.S.Probs()[s] - gotS[s]); d > 1e-7 {
					t.Fatalf("dims %v node %d: Q(S)[%d] = %v, schedule.Local gives %v", dims, k, s, gotS[s], n.S.Probs()[s])
				}
			}
			for ob := range no {
				if d := math.Abs(n.O.Probs()[ob] - gotO[ob]); d > 1e-7 {
					t.Fatalf("dims %v node %d: Q(O)[%d] = %v, schedule.Local gives %v", dims, k, ob, gotO[ob], n.O.Probs()[ob])
				}
			}
		}
		if leaves < 20 {
			t.Fatalf("dims %v: only %d leaves compared", dims, leaves)
		}
	}
}

// TestVMPTwoStates checks the fixed point of the paper's mean-field
// updates (section 6.2) on a two-state, two-observation model against a
// plain scalar iteration of
//
//	Q(s) ∝ exp(Σ_p Q(p) ln B(s|p) + Σ_o Q(o) ln A(o|s)),  Q(o) ∝ exp(Σ_s Q(s) ln A(o|s))
//
// written out here, and checks by hand the feature that matters for
// planning: the mean-field Q(O_I) is sharper than the predictive Ā Q(S_I).
//
// Model: D = (0.5, 0.5) and the first observation o_0 = 0 under A =
// [[0.9, 0.2], [0.1, 0.8]] give Q(S_0) ∝ (0.9, 0.2) = (9/11, 2/11). With
// B = [[0.7, 0.4], [0.3, 0.6]] the prediction is Q(S_1) = (0.7·9/11 +
// 0.4·2/11, 0.3·9/11 + 0.6·2/11) = (71/110, 39/110) ≈ (0.6455, 0.3545) and
// Ā Q(S_1) = (0.9·71/110 + 0.2·39/110, ...) = (717/1100, 383/1100) ≈
// (0.6518, 0.3482).
func TestVMPTwoStates(t *testing.T) {
	A := [][]float64{{0.9, 0.2}, {0.1, 0.8}}
	B := [][]float64{{0.7, 0.4}, {0.3, 0.6}}
	sp := pomdp.Spec{NumStates: 2, NumObs: 2, NumActions: 1,
		A: []float64{A[0][0], A[0][1], A[1][0], A[1][1]},
		B: []float64{B[0][0], B[0][1], B[1][0], B[1][1]},
		C: []float64{0.5, 0.5}, D: []float64{0.5, 0.5}}
	m, err := pomdp.New(sp)
	if err != nil {
		t.Fatal(err)
	}
	o := btai.DefaultOptions()
	o.Iterations, o.VMPIterations, o.VMPTolerance = 1, 1000, 1e-15
	ag, err := btai.NewAgent(m, &o, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := ag.Reset(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if err := ag.Plan(ctx); err != nil {
		t.Fatal(err)
	}
	qp := []float64{9.0 / 11, 2.0 / 11}
	if b := ag.Belief(); math.Abs(b[0]-qp[0]) > 1e-12 {
		t.Fatalf("Q(S_0) = %v, want (9/11, 2/11)", b)
	}
	// Scalar iteration from the prediction.
	qs := []float64{71.0 / 110, 39.0 / 110}
	qo := []float64{717.0 / 1100, 383.0 / 1100}
	norm := func(x0, x1 float64) (float64, float64) {
		m := math.Max(x0, x1)
		e0, e1 := math.Exp(x0-m), math.Exp(x1-m)
		return e0 / (e0 + e1), e1 / (e0 + e1)
	}
	for range 10000 {
		var e [2]float64
		for s := range 2 {
			e[s] = qp[0]*math.Log(B[s][0]) + qp[1]*math.Log(B[s][1]) + qo[0]*math.Log(A[0][s]) + qo[1]*math.Log(A[1][s])
		}
		qs[0], qs[1] = norm(e[0], e[1])
		for ob := range 2 {
			e[ob] = qs[0]*math.Log(A[ob][0]) + qs[1]*math.Log(A[ob][1])
		}
		qo[0], qo[1] = norm(e[0], e[1])
	}
	// The agent stops when |ΔF| < 1e-15; F is quadratic in the distance
	// to the fixed point, so its posteriors are within about sqrt(1e-15)
	// ≈ 3e-8 of it: tolerance 1e-7.
	n := ag.Tree().Nodes[1]
	if d := math.Abs(n.S.Probs()[0] - qs[0]); d > 1e-7 {
		t.Errorf("Q(S_I) = %v, scalar iteration gives %v", n.S.Probs(), qs)
	}
	if d := math.Abs(n.O.Probs()[0] - qo[0]); d > 1e-7 {
		t.Errorf("Q(O_I) = %v, scalar iteration gives %v", n.O.Probs(), qo)
	}
	// Mean field pulls Q(S_I) towards the state that explains the most
	// likely observation and makes Q(O_I) sharper than Ā Q(S_I): both
	// first entries exceed the predictive 71/110 and 717/1100.
	if !(qs[0] > 71.0/110 && qo[0] > 717.0/1100) {
		t.Errorf("mean field: Q(S_I) = %v, Q(O_I) = %v; want sharper than the prediction", qs, qo)
	}
	t.Logf("VMP Q(S_I) = %.4f, Q(O_I) = %.4f; predictive %.4f, %.4f", qs, qo, []float64{71.0 / 110, 39.0 / 110}, []float64{717.0 / 1100, 383.0 / 1100})
}
