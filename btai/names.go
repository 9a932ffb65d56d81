package btai

import (
	"fmt"
	"strings"
)

// enumName returns the name of option value v, names[v], or "typ(v)" for a
// value out of range. Cost, Inference, Propagation, Selection and
// ActionSelection use it for String.
func enumName[T ~int](names []string, typ string, v T) string {
	if v >= 0 && int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typ, int(v))
}

// parseEnum returns the option value named s: its index in names. Otherwise
// it returns the error `unknown what "s" (want a, b or c)`, listing names.
func parseEnum[T ~int](names []string, what, s string) (T, error) {
	for i, n := range names {
		if n == s {
			return T(i), nil
		}
	}
	want := names[len(names)-1]
	if len(names) > 1 {
		want = strings.Join(names[:len(names)-1], ", ") + " or " + want
	}
	return 0, fmt.Errorf("unknown %s %q (want %s)", what, s, want)
}
