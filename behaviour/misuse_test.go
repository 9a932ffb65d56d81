package behaviour_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/behaviour"
	"github.com/arbor-ai/arbor/internal/misusetest"
	"github.com/arbor-ai/arbor/pomdp"
)

// TestMisuse runs every misuse of the package's API that the package
// refuses: with an error, or with the panic that a doc comment documents
// (a programming error, as the standard library panics on), or gives a
// documented meaning.
func TestMisuse(t *testing.T) {
	m, err := pomdp.Load("../pomdp/testdata/tiny-pomdp.json") // 3 states, 2 observations, 2 actions
	if err != nil {
		t.Fatal(err)
	}

	misusetest.Run(t, "behaviour: ", []misusetest.Case{
		{Name: "zero Reader", Call: func() error { _, err := new(behaviour.Reader).Next(); return err }, Msg: "zero Reader"},
		{Name: "Reader nil reader", Call: func() error { _, err := behaviour.NewReader(nil, "", m, nil).Next(); return err }, Msg: "nil reader"},
		{Name: "Reader nil model", Call: func() error {
			_, err := behaviour.NewReader(strings.NewReader("x"), "", nil, nil).Next()
			return err
		}, Msg: "nil model"},
		{Name: "zero Writer", Call: func() error { return new(behaviour.Writer).WriteStep("s", 1, 0, 0, -1, false) }, Msg: "zero Writer"},
		{Name: "zero Writer Flush", Call: func() error { return new(behaviour.Writer).Flush() }, Msg: "zero Writer"},
		{Name: "Writer nil writer", Call: func() error { _, err := behaviour.NewWriter(nil, m, nil); return err }, Msg: "nil writer"},
		{Name: "WriteSubject nil record", Call: func() error {
			w, err := behaviour.NewWriter(new(bytes.Buffer), m, nil)
			if err != nil {
				return err
			}
			return w.WriteSubject(nil)
		}, Msg: "behaviour: WriteSubject: nil record"},
		{Name: "WriteStep observation out of range", Call: func() error {
			w, err := behaviour.NewWriter(new(bytes.Buffer), m, nil)
			if err != nil {
				return err
			}
			return w.WriteStep("s", 1, 0, 9, -1, false)
		}, Msg: "observation 9 out of range"},
	})
}
