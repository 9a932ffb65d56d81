package si_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/internal/misusetest"
	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/si"
)

// TestMisuse runs the table of misuses of si's API. Decide with a nil
// random stream is an error, as aci's and btai's are, whatever the choice
// rule (with sampling it was a panic inside the draw).
func TestMisuse(t *testing.T) {
	m, err := pomdp.Load("../examples/pomdp/si-tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	started := func(sel string) *si.Agent {
		ag, err := si.NewAgent(m, &si.Options{Depth: 1, Select: sel})
		if err != nil {
			t.Fatal(err)
		}
		if err := ag.Reset(ctx, 0); err != nil {
			t.Fatal(err)
		}
		return ag
	}
	misusetest.Runner{Prefix: "si: ", Always: true}.Run(t, []misusetest.Case{
		{Name: "Plan of a short belief", Call: func() error { _, err := si.Plan(ctx, m, []float64{1}, &si.Options{Depth: 1}); return err }, Prefix: "pomdp: qs: "},
		{Name: "Plan nil model", Call: func() error { _, err := si.Plan(ctx, nil, nil, nil); return err }, Prefix: "pomdp: ", Msg: "model: nil"},
		{Name: "NewPlanner depth out of range", Call: func() error { _, err := si.NewPlanner(m, &si.Options{Depth: 300}); return err }, Msg: "Options.Depth: 300"},
		{Name: "EstimatePlan depth out of range", Call: func() error { _, err := si.EstimatePlan(m, &si.Options{Depth: 300}); return err }, Msg: "Options.Depth: 300"},
		{Name: "Options.Validate depth out of range", Call: func() error { return (&si.Options{Depth: 300}).Validate(m) }, Msg: "Options.Depth: 300"},
		{Name: "Decide nil rng, sampling", Call: func() error { _, err := started(si.SelectSample).Decide(ctx, nil); return err }, Msg: "si: Decide with a nil random stream"},
		{Name: "Decide nil rng, argmax", Call: func() error { _, err := started(si.SelectArgmax).Decide(ctx, nil); return err }, Msg: "si: Decide with a nil random stream"},
		{Name: "NewAgent nil model", Call: func() error { _, err := si.NewAgent(nil, nil); return err }, Prefix: "pomdp: ", Msg: "model: nil"},
		{Name: "NewAgent depth out of range", Call: func() error { _, err := si.NewAgent(m, &si.Options{Depth: 300}); return err }, Msg: "Options.Depth: 300, want 1..256"},
		{Name: "NewAgent bad gamma", Call: func() error { _, err := si.NewAgent(m, &si.Options{Depth: 1, Gamma: math.NaN()}); return err }, Msg: "Options.Gamma"},
		{Name: "ParseBranching of a bad name", Call: func() error { _, err := si.ParseBranching("wide"); return err }, Msg: `"wide", want joint or marginal`},
		{Name: "Decide before Reset", Call: func() error {
			ag, err := si.NewAgent(m, &si.Options{Depth: 1})
			if err != nil {
				return fmt.Errorf("setup: %v", err)
			}
			_, err = ag.Decide(ctx, rand.New(rand.NewPCG(1, 2)))
			return err
		}, Msg: "no trial in progress"},
		{Name: "Advance before Reset", Call: func() error {
			ag, err := si.NewAgent(m, &si.Options{Depth: 1})
			if err != nil {
				return fmt.Errorf("setup: %v", err)
			}
			return ag.Advance(ctx, 0, 0)
		}, Msg: "no trial in progress"},
		{Name: "Reset observation out of range", Call: func() error { return started(si.SelectArgmax).Reset(ctx, 99) }},
	})
}

// TestErrorReturns holds the exported functions and methods of si to the
// rule of docs/reliability.md ("Error messages") in the source: every
// error they return is nil, a literal starting with "si: ", or passes
// through apiError, apiResult or inContext, which put the prefix in front
// once.
func TestErrorReturns(t *testing.T) {
	misusetest.Returns(t, "si: ", "apiError", "apiResult", "inContext")
}
