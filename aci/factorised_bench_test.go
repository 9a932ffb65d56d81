package aci_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/pomdp"
)

// chainSpec returns a model with nf factors of ns states and nf-1
// modalities of no outcomes, modality i depending on factors i and i+1;
// the factors listed in controlled have nu controls each. Entries are
// random (seeded), every column a distribution.
func chainSpec(nf, ns, no, nu int, controlled ...int) pomdp.FactorisedSpec {
	rng := rand.New(rand.NewPCG(uint64(nf*1000+ns), uint64(nu)))
	isCtrl := map[int]bool{}
	for _, f := range controlled {
		isCtrl[f] = true
	}
	var fs pomdp.FactorisedSpec
	for f := range nf {
		n := 1
		var controls []string
		if isCtrl[f] {
			n = nu
			for u := range nu {
				controls = append(controls, fmt.Sprint(u))
			}
		}
		fs.Factors = append(fs.Factors, pomdp.Factor{
			Name: fmt.Sprintf("f%d", f), NumStates: ns, Controls: controls,
			B: randomColumns(rng, n, ns, ns), D: randomColumns(rng, 1, ns, 1),
		})
	}
	for i := range nf - 1 {
		logC := make([]float64, no)
		for o := range logC {
			logC[o] = 3 * rng.Float64()
		}
		fs.Modalities = append(fs.Modalities, pomdp.Modality{
			Name: fmt.Sprintf("m%d", i), NumOutcomes: no,
			DependsOn: []string{fs.Factors[i].Name, fs.Factors[i+1].Name},
			A:         randomColumns(rng, 1, no, ns*ns), LogC: logC,
		})
	}
	return fs
}

// flatten returns the same model on the joint state space: one factor of
// Π_f |S_f| states (first factor slowest) with B_u = ⊗_f B_f[u_f], and
// every modality depending on that factor. Its EFE equals the factorised
// one from a product belief (TestFactorisedMatchesFlattened).
func flatten(fs pomdp.FactorisedSpec) (pomdp.FactorisedSpec, error) {
	nf := len(fs.Factors)
	sizes := make([]int, nf)
	index := map[string]int{}
	J := 1
	for f, fac := range fs.Factors {
		sizes[f], index[fac.Name] = fac.NumStates, f
		J *= fac.NumStates
	}
	digits := func(j int, s []int) {
		for f := nf - 1; f >= 0; f-- {
			s[f] = j % sizes[f]
			j /= sizes[f]
		}
	}
	// Joint controls, first factor slowest (as pomdp orders actions).
	ctrls := [][]int{make([]int, nf)}
	for f := nf - 1; f >= 0; f-- {
		var next [][]int
		for c := range max(1, len(fs.Factors[f].Controls)) {
			for _, rest := range ctrls {
				x := append([]int(nil), rest...)
				x[f] = c
				next = append(next, x)
			}
		}
		ctrls = next
	}
	nu := len(ctrls)
	if float64(nu)*float64(J)*float64(J) > 6e8 {
		return pomdp.FactorisedSpec{}, fmt.Errorf("flattened B of %d × %d² entries: too large", nu, J)
	}
	b := make([]float64, nu*J*J)
	sn, sp := make([]int, nf), make([]int, nf)
	for u, c := range ctrls {
		for n := range J {
			digits(n, sn)
			row := b[(u*J+n)*J : (u*J+n+1)*J]
			for p := range J {
				digits(p, sp)
				v := 1.0
				for f := range nf {
					ns := sizes[f]
					v *= fs.Factors[f].B[(c[f]*ns+sn[f])*ns+sp[f]]
				}
				row[p] = v
			}
		}
	}
	controls := make([]string, nu)
	for u := range controls {
		controls[u] = fmt.Sprint(u)
	}
	out := pomdp.FactorisedSpec{Factors: []pomdp.Factor{{Name: "joint", NumStates: J, Controls: controls, B: b, D: make([]float64, J)}}}
	out.Factors[0].D[0] = 1
	s := make([]int, nf)
	for _, md := range fs.Modalities {
		cols := len(md.A) / md.NumOutcomes
		a := make([]float64, md.NumOutcomes*J)
		for j := range J {
			digits(j, s)
			col := 0
			for _, name := range md.DependsOn {
				f := index[name]
				col = col*sizes[f] + s[f]
			}
			for o := range md.NumOutcomes {
				a[o*J+j] = md.A[o*cols+col]
			}
		}
		out.Modalities = append(out.Modalities, pomdp.Modality{
			Name: md.Name, NumOutcomes: md.NumOutcomes, DependsOn: []string{"joint"}, A: a, C: md.C, LogC: md.LogC,
		})
	}
	return out, nil
}

// productBelief is the uniform belief of every factor, and the same belief
// on the joint space.
func productBelief(m *pomdp.Model) []float64 {
	q := make([]float64, 0, m.NumStates())
	for f := range m.NumFactors() {
		for range m.FactorSize(f) {
			q = append(q, 1/float64(m.FactorSize(f)))
		}
	}
	return q
}

// BenchmarkFactorisedEFE scores every policy of horizon 3 on a model with
// 4 factors and 3 modalities, each modality depending on 2 factors: the
// factorised computation, and the same EFE on the flattened model (one
// factor of |S|^4 states). 4 × 6 states with one controllable factor of 4
// controls (1,296 joint states) runs by default; 4 × 10 (10,000 joint
// states, a flattened B of 4 × 10^8 entries, 3.2 GB, built in a few
// seconds) runs with ARBOR_BENCH_FLAT10=1. "two-controlled" is the
// factorised path alone with two controllable factors of 3 controls each
// (729 policies).
func BenchmarkFactorisedEFE(b *testing.B) {
	type shape struct {
		name             string
		ns, no, nu       int
		controlled       []int
		flat, needsOptIn bool
	}
	shapes := []shape{
		{"4x6/factorised", 6, 6, 4, []int{0}, false, false},
		{"4x6/flattened", 6, 6, 4, []int{0}, true, false},
		{"4x10/factorised", 10, 10, 4, []int{0}, false, false},
		{"4x10/flattened", 10, 10, 4, []int{0}, true, true},
		{"4x10/two-controlled", 10, 10, 3, []int{0, 2}, false, false},
	}
	for _, sh := range shapes {
		b.Run(sh.name, func(b *testing.B) {
			if sh.needsOptIn && os.Getenv("ARBOR_BENCH_FLAT10") == "" {
				b.Skip("set ARBOR_BENCH_FLAT10=1 (needs about 7 GB)")
			}
			fs := chainSpec(4, sh.ns, sh.no, sh.nu, sh.controlled...)
			var q []float64
			if sh.flat {
				ff, err := flatten(fs)
				if err != nil {
					b.Fatal(err)
				}
				fs = ff
			}
			m, err := pomdp.NewFactorised(fs)
			if err != nil {
				b.Fatal(err)
			}
			if sh.flat {
				q = make([]float64, m.NumStates())
				for j := range q {
					q[j] = 1 / float64(len(q))
				}
			} else {
				q = productBelief(m)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := aci.EvaluatePolicies(m, q, 3, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestFlattenedBenchmarkModelAgrees: the benchmark's flattening gives the
// factorised EFE (4 factors of 3 states, so that the test is quick).
func TestFlattenedBenchmarkModelAgrees(t *testing.T) {
	fs := chainSpec(4, 3, 3, 2, 0, 3)
	m, err := pomdp.NewFactorised(fs)
	if err != nil {
		t.Fatal(err)
	}
	ff, err := flatten(fs)
	if err != nil {
		t.Fatal(err)
	}
	mf, err := pomdp.NewFactorised(ff)
	if err != nil {
		t.Fatal(err)
	}
	qf := make([]float64, mf.NumStates())
	for j := range qf {
		qf[j] = 1 / float64(len(qf))
	}
	a, err := aci.EvaluatePolicies(m, productBelief(m), 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := aci.EvaluatePolicies(mf, qf, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.G {
		if !close12(a.G[i], c.G[i]) {
			t.Fatalf("G[%d] = %v factorised, %v flattened", i, a.G[i], c.G[i])
		}
	}
}
