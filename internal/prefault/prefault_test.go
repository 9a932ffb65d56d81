package prefault

import "testing"

// TestSliceKeepsContents: populating leaves every value as it was, on a
// large array (past MinBytes, not page-aligned at either end) and on small
// and empty ones (left alone).
func TestSliceKeepsContents(t *testing.T) {
	Slice([]float64(nil))
	Slice(make([]byte, 0, 10))
	s := make([]float64, 3, (MinBytes/8)*5+3)
	s[1] = 2.5
	Slice(s)
	full := s[:cap(s)]
	for i, x := range full {
		if want := map[bool]float64{true: 2.5, false: 0}[i == 1]; x != want {
			t.Fatalf("s[%d] = %v after Slice, want %v", i, x, want)
		}
	}
	type rec struct {
		p *int
		x [3]float64
	}
	r := make([]rec, MinBytes/8)
	Slice(r)
	for i := range r {
		if r[i].p != nil || r[i].x != [3]float64{} {
			t.Fatalf("r[%d] = %v, want zero", i, r[i])
		}
	}
}

// TestMake: Make is make with its length and capacity, zeroed.
func TestMake(t *testing.T) {
	for _, c := range [][2]int{{0, 0}, {3, 10}, {5, MinBytes}, {0, MinBytes * 2}} {
		s := Make[int32](c[0], c[1])
		if len(s) != c[0] || cap(s) != c[1] {
			t.Errorf("Make(%d, %d): len %d cap %d", c[0], c[1], len(s), cap(s))
		}
		for i, x := range s[:cap(s)] {
			if x != 0 {
				t.Fatalf("Make(%d, %d)[%d] = %d", c[0], c[1], i, x)
			}
		}
	}
}
