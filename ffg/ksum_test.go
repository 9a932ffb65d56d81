package ffg

import (
	"math"
	"testing"
)

// TestKsum: 10^6 additions of 0.1 to 10^8 lose about 10^-3 in a plain
// sum and nothing beyond one rounding compensated (the exact total is
// 10^8 + 10^5, up to the rounding of 0.1 itself: 10^5 + 5.55e-12).
func TestKsum(t *testing.T) {
	var k ksum
	plain := 1e8
	k.add(1e8)
	for range 1_000_000 {
		k.add(0.1)
		plain += 0.1
	}
	want := 1e8 + 1e5
	if got := k.value(); math.Abs(got-want) > 1e-7 {
		t.Errorf("compensated: %.10f, want %.10f", got, want)
	}
	if math.Abs(plain-want) < 1e-5 {
		t.Errorf("plain sum %.10f is as exact as the compensated one: the test shows nothing", plain)
	}
}
