package expfam_test

import (
	"testing"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/internal/misusetest"
)

// TestMisuse: the panics of DirichletTensor.Column are those its doc
// comment documents, with an "expfam: " message (never an index out of
// range inside the package).
func TestMisuse(t *testing.T) {
	d := expfam.DirichletTensor{Alpha: []float64{1, 2, 3, 4}, Shape: []int{2, 2}}
	bad := expfam.DirichletTensor{Alpha: []float64{1, 2, 3}, Shape: []int{2, 2}}
	call := func(f func()) func() error { return func() error { f(); return nil } }
	misusetest.Run(t, "expfam: ", []misusetest.Case{
		{Name: "Column past the last", Call: call(func() { d.Column(2) }), Msg: "expfam: DirichletTensor.Column: column 2 out of range [0, 2)",
			Panics: "DirichletTensor.Column", Says: "panics (with an \"expfam: \" message) if j is out of range [0, Cols())"},
		{Name: "Column -1", Call: call(func() { d.Column(-1) }), Msg: "column -1 out of range", Panics: "DirichletTensor.Column", Says: "out of range"},
		{Name: "Column of a bad shape", Call: call(func() { bad.Column(0) }), Msg: "expfam: ", Panics: "DirichletTensor.Column", Says: "the shape is invalid"},
		{Name: "Column of no axes", Call: call(func() { expfam.DirichletTensor{Alpha: []float64{1}}.Column(0) }), Msg: "expfam: ", Panics: "DirichletTensor.Column", Says: "the shape is invalid"},
	})
}
