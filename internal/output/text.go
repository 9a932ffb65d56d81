package output

import (
	"fmt"
	"strconv"
	"unicode"
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

// Quote returns s as it is when it is valid UTF-8 and every character is
// printable (unicode.IsPrint: letters, marks, numbers, punctuation,
// symbols and the ASCII space), else quoted as Go quotes a string
// ("p\n01", "a\x00b"): a name read from a file (a subject's) cannot break
// a line of the output, or hide a character in it.
func Quote(s string) string {
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}
