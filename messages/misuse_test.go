package messages_test

import (
	"testing"

	"github.com/arbor-ai/arbor/internal/misusetest"
	"github.com/arbor-ai/arbor/messages"
)

// TestMisuse: the panics of Outer are those its doc comment documents,
// with a "messages: " message.
func TestMisuse(t *testing.T) {
	call := func(f func()) func() error { return func() error { f(); return nil } }
	seventeen := make([][]float64, 17)
	for i := range seventeen {
		seventeen[i] = []float64{1}
	}
	misusetest.Run(t, "messages: ", []misusetest.Case{
		{Name: "Outer into a short dst", Call: call(func() { messages.Outer(make([]float64, 3), []float64{1, 2}, []float64{1, 2}) }),
			Msg: "messages: Outer: dst length", Panics: "Outer", Says: "panics (with a \"messages: \" message) when dst is given and its length is not the product"},
		{Name: "Outer of no vectors", Call: call(func() { messages.Outer(nil) }), Msg: "messages: AddOuter: need 1 to 16 vectors",
			Panics: "Outer", Says: "when there are no vectors or more than 16"},
		{Name: "Outer of 17 vectors", Call: call(func() { messages.Outer(nil, seventeen...) }), Msg: "need 1 to 16 vectors", Panics: "Outer", Says: "more than 16"},
	})
}
