package si_test

import (
	"context"
	"testing"

	"github.com/arbor-ai/arbor/internal/misusetest"
	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/si"
)

// TestDecideNilStream: Decide with a nil random stream is an error, as aci's
// and btai's are, whatever the choice rule (with sampling it was a panic
// inside the draw).
func TestDecideNilStream(t *testing.T) {
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
		{Name: "Decide nil rng, sampling", Call: func() error { _, err := started(si.SelectSample).Decide(ctx, nil); return err }, Msg: "si: Decide with a nil random stream"},
		{Name: "Decide nil rng, argmax", Call: func() error { _, err := started(si.SelectArgmax).Decide(ctx, nil); return err }, Msg: "si: Decide with a nil random stream"},
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
