package apierr_test

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/arbor-ai/arbor/internal/apierr"
)

// TestWrap: the prefix once, nil kept, another package's prefix kept after
// ours, and what was wrapped still found.
func TestWrap(t *testing.T) {
	if apierr.Wrap("aci: ", nil) != nil {
		t.Error("Wrap(nil) is not nil")
	}
	own := errors.New("aci: k: 0, want >= 1")
	if got := apierr.Wrap("aci: ", own); got != own {
		t.Errorf("an error with the prefix became %v", got)
	}
	inner := errors.New("pomdp: qs: 1 entries, want 3")
	got := apierr.Wrap("aci: ", inner)
	if got.Error() != "aci: pomdp: qs: 1 entries, want 3" || !errors.Is(got, inner) {
		t.Errorf("Wrap: %v (wraps the inner error: %v)", got, errors.Is(got, inner))
	}
}

// TestInContext: the context after the prefix, the prefix not repeated,
// and the cause still found.
func TestInContext(t *testing.T) {
	cause := &fs.PathError{Op: "open", Path: "m.json", Err: fs.ErrNotExist}
	for _, err := range []error{apierr.Wrap("pomdp: ", cause), cause} {
		got := apierr.InContext("pomdp: ", "m.json", err)
		want := "pomdp: m.json: open m.json: file does not exist"
		if got.Error() != want || !errors.Is(got, fs.ErrNotExist) {
			t.Errorf("InContext(%v) = %q, want %q (finds the cause: %v)", err, got, want, errors.Is(got, fs.ErrNotExist))
		}
	}
	if got := apierr.Reason("si: ", errors.New("si: Options.Depth: 0")); got != "Options.Depth: 0" {
		t.Errorf("Reason: %q", got)
	}
}
