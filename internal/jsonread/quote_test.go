package jsonread

import (
	"strings"
	"testing"
)

// TestQuote: text up to MaxQuoted bytes is quoted whole; longer text is cut
// at a rune boundary (never inside é's two bytes) with its length; a list
// names four and counts the rest.
func TestQuote(t *testing.T) {
	if got := Quote("abc"); got != `"abc"` {
		t.Errorf("Quote(abc) = %s", got)
	}
	long := strings.Repeat("a", 39) + "é" + "bc" // 39 + 2 + 2 = 43 bytes: é spans bytes 39-40
	if got := Shorten(long); got != strings.Repeat("a", 39)+"...(43 bytes)" {
		t.Errorf("Shorten = %q", got)
	}
	if got := NameList([]string{"a", "b", "c", "d", "e", "f"}); got != `"a", "b", "c", "d", and 2 more` {
		t.Errorf("NameList = %s", got)
	}
}
