package output

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Shorten returns s when it has at most n bytes, else s cut at a
// character boundary and followed by "…" and the number of bytes left out,
// "abc… (1234 bytes more)", n bytes at most in all (when n leaves room for
// the note).
func Shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	note := len("… ( bytes more)") + len(strconv.Itoa(len(s)))
	cut := max(0, n-note)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes more)", s[:cut], len(s)-cut)
}

// Cut returns s cut to at most n bytes at a character boundary, without
// a note of what was left out (a name in a table or on a figure's axis).
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
