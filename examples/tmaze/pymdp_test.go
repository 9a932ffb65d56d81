package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/pomdp"
)

// The T-maze in pymdp's layout, written independently of Spec and of the
// JSON file, as docs/tutorial-from-pymdp-spm.md writes it in Python:
// A[m] has shape (outcomes, location, context) over every factor, B[f]
// shape (next, prev, control), C[m] log-preferences, D[f].
type pymdpModel struct {
	A       [3][][4][2]float64 // modality, outcome, location, context
	B0      [4][4][4]float64   // location: next, prev, control
	B1      [2][2]float64      // context: next, prev (one control)
	C       [3][]float64
	D0, D1  []float64
	choices int // controls of the location factor
}

func tmazePymdp() *pymdpModel {
	m := &pymdpModel{choices: 4}
	// B[0][next, prev, u]: go to u; the arms (2, 3) are absorbing.
	for u := range 4 {
		for prev := range 4 {
			next := u
			if prev == 2 || prev == 3 {
				next = prev
			}
			m.B0[next][prev][u] = 1
		}
	}
	m.B1 = [2][2]float64{{1, 0}, {0, 1}}
	// where: the location, whatever the context.
	m.A[0] = make([][4][2]float64, 4)
	for loc := range 4 {
		m.A[0][loc][loc] = [2]float64{1, 1}
	}
	// cue: none, cue-left, cue-right; at the cue 0.95 valid.
	m.A[1] = make([][4][2]float64, 3)
	m.A[1][0][0] = [2]float64{1, 1}
	m.A[1][0][2] = [2]float64{1, 1}
	m.A[1][0][3] = [2]float64{1, 1}
	m.A[1][1][1] = [2]float64{0.95, 0.05}
	m.A[1][2][1] = [2]float64{0.05, 0.95}
	// reward: none, reward, punishment; left pays in context 0.
	m.A[2] = make([][4][2]float64, 3)
	m.A[2][0][0] = [2]float64{1, 1}
	m.A[2][0][1] = [2]float64{1, 1}
	m.A[2][1][2] = [2]float64{1, 0}
	m.A[2][2][2] = [2]float64{0, 1}
	m.A[2][1][3] = [2]float64{0, 1}
	m.A[2][2][3] = [2]float64{1, 0}
	m.C = [3][]float64{{0, 0, 0, 0}, {0, 0, 0}, {0, 3, -6}}
	m.D0, m.D1 = []float64{1, 0, 0, 0}, []float64{0.5, 0.5}
	return m
}

// negEFE is pymdp's score of a policy (u_1, ..., u_T) of location controls
// from the beliefs qs0, qs1 (its update_posterior_policies, with states
// info gain computed as its spm_MDP_G does, over the joint outcome of all
// modalities): the sum over tau of
//
//	utility   Σ_m Q(o_m) · ln softmax(C_m)
//	info gain H[Q(o_1, ..., o_M)] − E_Q(s) H[P(o_1, ..., o_M | s)]
//
// with Q(s_tau) = B[:, :, u_tau] Q(s_(tau-1)) per factor and Q(s) their
// product.
func (m *pymdpModel) negEFE(policy []int, qs0, qs1 []float64) float64 {
	lnC := make([][]float64, 3)
	for k, c := range m.C {
		z := 0.0
		for _, v := range c {
			z += math.Exp(v)
		}
		lnC[k] = make([]float64, len(c))
		for o, v := range c {
			lnC[k][o] = v - math.Log(z)
		}
	}
	total := 0.0
	for _, u := range policy {
		next0, next1 := make([]float64, 4), make([]float64, 2)
		for n := range 4 {
			for p := range 4 {
				next0[n] += m.B0[n][p][u] * qs0[p]
			}
		}
		for n := range 2 {
			for p := range 2 {
				next1[n] += m.B1[n][p] * qs1[p]
			}
		}
		qs0, qs1 = next0, next1
		// Joint outcomes (o_where, o_cue, o_reward) under every state.
		joint := map[[3]int]float64{}
		expH := 0.0
		for l := range 4 {
			for c := range 2 {
				w := qs0[l] * qs1[c]
				if w == 0 {
					continue
				}
				for o0 := range m.A[0] {
					for o1 := range m.A[1] {
						for o2 := range m.A[2] {
							p := m.A[0][o0][l][c] * m.A[1][o1][l][c] * m.A[2][o2][l][c]
							if p > 0 {
								joint[[3]int{o0, o1, o2}] += w * p
								expH -= w * p * math.Log(p)
							}
						}
					}
				}
			}
		}
		hQo := 0.0
		for _, q := range joint {
			if q > 0 {
				hQo -= q * math.Log(q)
			}
		}
		utility := 0.0
		for k := range 3 {
			for o := range m.A[k] {
				q := 0.0
				for l := range 4 {
					for c := range 2 {
						q += m.A[k][o][l][c] * qs0[l] * qs1[c]
					}
				}
				utility += q * lnC[k][o]
			}
		}
		total += utility + hQo - expH
	}
	return total
}

// TestPymdpConventions: arbor's G of every 2-step policy on
// examples/pomdp/tmaze.json is minus pymdp's score computed above in
// pymdp's layout (to 1e-12), its q_pi is pymdp's softmax(16 · score), and
// the side-by-side table of docs/tutorial-from-pymdp-spm.md shows these
// numbers to the digits it prints.
func TestPymdpConventions(t *testing.T) {
	m, err := pomdp.Load("../pomdp/tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	obs, err := m.EncodeObs([]int{0, 0, 0}) // start, no cue, no reward
	if err != nil {
		t.Fatal(err)
	}
	res, err := aci.Eval(m, obs, 2, 16)
	if err != nil {
		t.Fatal(err)
	}
	pm := tmazePymdp()
	scores := make([]float64, len(res.Policies))
	z, top := 0.0, math.Inf(-1)
	for i, p := range res.Policies {
		scores[i] = pm.negEFE(p, pm.D0, pm.D1)
		top = math.Max(top, 16*scores[i])
	}
	for _, s := range scores {
		z += math.Exp(16*s - top)
	}
	byName := map[string][3]float64{} // policy -> arbor G, pymdp score, q_pi
	for i, p := range res.Policies {
		qpi := math.Exp(16*scores[i]-top) / z
		if d := res.G[i] + scores[i]; math.Abs(d) > 1e-12 {
			t.Errorf("policy %v: arbor G %.15f, pymdp score %.15f (want G = -score)", p, res.G[i], scores[i])
		}
		if math.Abs(res.QPi[i]-qpi) > 1e-12 {
			t.Errorf("policy %v: arbor q_pi %.15g, pymdp %.15g", p, res.QPi[i], qpi)
		}
		byName[m.ActionName(p[0])+" "+m.ActionName(p[1])] = [3]float64{res.G[i], scores[i], qpi}
	}

	// The table: | policy | arbor G | pymdp G | q_pi |.
	f, err := os.Open("../../docs/tutorial-from-pymdp-spm.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cells := strings.Split(strings.Trim(sc.Text(), "| "), "|")
		if len(cells) != 4 {
			continue
		}
		name := strings.Trim(strings.TrimSpace(cells[0]), "`")
		want, ok := byName[name]
		if !ok {
			continue
		}
		rows++
		for k := range 3 {
			shown := strings.TrimSpace(cells[k+1])
			v, err := strconv.ParseFloat(shown, 64)
			if err != nil {
				t.Errorf("row %s: %q is not a number", name, shown)
				continue
			}
			if got := fmt.Sprintf("%.4g", want[k]); got != fmt.Sprintf("%.4g", v) {
				t.Errorf("row %s, column %d: shows %s, computed %s", name, k+2, shown, got)
			}
		}
	}
	if rows < 5 {
		t.Errorf("the tutorial's table has %d policy rows, want at least 5", rows)
	}
}
