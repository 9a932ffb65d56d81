package main

import (
	"context"
	"math"
	"testing"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/model"
	"github.com/arbor-ai/arbor/nodes"
	"github.com/arbor-ai/arbor/schedule"
)

// TestSumProductIsExact: with B known the discrete variables form a chain,
// so sum-product's F is -ln p(o), which forward() computes independently;
// VMP's fully factorised F lies above it (F = -ln p(o) + KL >= -ln p(o)).
func TestSumProductIsExact(t *testing.T) {
	want := forward()
	_, sp, err := infer(false, schedule.MethodSumProduct)
	if err != nil {
		t.Fatal(err)
	}
	if got := sp.Final(); math.Abs(got-want) > 1e-10 {
		t.Errorf("sum-product F = %.12f, want -ln p(o) = %.12f", got, want)
	}
	_, vmp, err := infer(false, schedule.MethodVMP)
	if err != nil {
		t.Fatal(err)
	}
	if vmp.Final() < want-1e-12 {
		t.Errorf("VMP F = %.12f below -ln p(o) = %.12f", vmp.Final(), want)
	}
}

// TestSameAsTheFile: the graph built on the core with B learned is the
// model of examples/models/hmm.json, which the model package builds by
// another path: the same F trace and posteriors to 1e-12 under both
// methods.
func TestSameAsTheFile(t *testing.T) {
	for _, method := range []string{schedule.MethodVMP, schedule.MethodSumProduct} {
		m, err := model.Load("../models/hmm.json")
		if err != nil {
			t.Fatal(err)
		}
		m.Settings.Method = method
		want, err := m.Infer(context.Background(), "hmm.json", nil)
		if err != nil {
			t.Fatal(err)
		}
		g, got, err := infer(true, method)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.FreeEnergy) != len(want.FreeEnergy) {
			t.Fatalf("%s: %d sweeps, the file %d", method, len(got.FreeEnergy), len(want.FreeEnergy))
		}
		for i := range got.FreeEnergy {
			if math.Abs(got.FreeEnergy[i]-want.FreeEnergy[i]) > 1e-12 {
				t.Errorf("%s: F[%d] = %.15f, the file %.15f", method, i, got.FreeEnergy[i], want.FreeEnergy[i])
			}
		}
		for _, v := range m.Variables {
			if v.Observed() {
				continue
			}
			mine, ok := g.Variable(v.Name())
			if !ok {
				t.Fatalf("no variable %s in the core's graph", v.Name())
			}
			a, b := v.Stats(), mine.Stats() // E[s] or E[ln B] under the posterior
			for i := range a {
				if math.Abs(a[i]-b[i]) > 1e-12 {
					t.Errorf("%s: %s[%d] = %g, the file %g", method, v.Name(), i, b[i], a[i])
				}
			}
		}
	}
}

// TestWrongShape: a factor connected to a variable of the wrong shape is
// refused with the factor, the interface and both shapes, as the tutorial
// shows.
func TestWrongShape(t *testing.T) {
	g := ffg.New()
	s0, err := g.AddVariable("s0", expfam.CategoricalFamily, 2)
	if err != nil {
		t.Fatal(err)
	}
	s1, err := g.AddVariable("s1", expfam.CategoricalFamily, 3)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := nodes.NewTransition(knownB(), []int{3, 3})
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.AddFactor("B", tr, s1, s0)
	const want = `ffg: factor transition "B": interface "in" wants shape [3], variable "s0" has shape [2]`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}
