package btai_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/arbor-ai/arbor/btai"
)

// TestZeroOptionsAreDefaults: the zero Options, a nil *Options and
// DefaultOptions give the same agent settings (the scale-free preset's);
// a zero field means its default and a set one is kept; zero is a value
// for the pointer fields; Visits' precision defaults to 1.
func TestZeroOptionsAreDefaults(t *testing.T) {
	if d := cmp.Diff(btai.DefaultOptions(), btai.Options{}.Resolved()); d != "" {
		t.Errorf("zero options (-default +zero):\n%s", d)
	}
	if d := cmp.Diff(btai.PresetScaleFree(), btai.DefaultOptions()); d != "" {
		t.Errorf("scale-free preset (-preset +default):\n%s", d)
	}
	r := btai.Options{Iterations: 7, Exploration: ptr(0), ActionPrecision: ptr(0), Window: btai.WindowAll}.Resolved()
	if r.Iterations != 7 || *r.Exploration != 0 || *r.ActionPrecision != 0 || r.Window != btai.WindowAll || r.VMPIterations != btai.DefaultVMPIterations {
		t.Errorf("resolved %+v", r)
	}
	if v := (btai.Options{ActionSelection: btai.Visits}).Resolved(); *v.ActionPrecision != btai.DefaultVisitsPrecision {
		t.Errorf("visits precision %v, want %v", *v.ActionPrecision, btai.DefaultVisitsPrecision)
	}
	if s := (btai.Options{}).Resolved(); *s.ActionPrecision != btai.DefaultSoftmaxPrecision || s.Selection != btai.NormalizedUCT || *s.Exploration != 0.5 || s.Iterations != 1000 || s.Window != 32 {
		t.Errorf("defaults %+v", s)
	}
	var zero btai.Options
	if err := zero.Validate(); err != nil {
		t.Errorf("the zero options: %v", err)
	}
}
