package jsonread

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxQuoted is the longest text, in bytes, that an error message quotes
// from user input (a name, a key, a number literal, a column); longer text
// is cut so that one bad field cannot make a megabyte-long error line.
const MaxQuoted = 40

// Shorten returns s, or its first MaxQuoted bytes (cut at a rune
// boundary) followed by "...(N bytes)" when s is longer.
func Shorten(s string) string {
	if len(s) <= MaxQuoted {
		return s
	}
	cut := MaxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s...(%d bytes)", s[:cut], len(s))
}

// Quote is %q of Shorten(s).
func Quote(s string) string {
	if len(s) <= MaxQuoted {
		return strconv.Quote(s)
	}
	return strconv.Quote(Shorten(s))
}

// NameList quotes the first four names, and counts the rest, for an error
// message.
func NameList(names []string) string {
	const most = 4
	var parts []string
	for i, n := range names {
		if i == most {
			parts = append(parts, fmt.Sprintf("and %d more", len(names)-most))
			break
		}
		parts = append(parts, Quote(n))
	}
	return strings.Join(parts, ", ")
}
