package btai_test

import (
	"math/rand/v2"
	"os"
	"testing"
)

func TestShowDetours(t *testing.T) {
	if os.Getenv("BTAI_DETOURS") == "" {
		t.Skip()
	}
	rng := rand.New(rand.NewPCG(2026, 11))
	found := 0
	for tries := 0; found < 12 && tries < 200000; tries++ {
		mz := randomMaze(t, rng, 8+rng.IntN(3), 8+rng.IntN(3), 0.3+0.1*rng.Float64())
		if mz == nil {
			continue
		}
		lo, hi := rises(mz)
		sp, _ := mz.ShortestPath()
		h := horizonH(mz, 60)
		if lo < 2 || hi > 6 || sp < 8 || h < 7 {
			continue
		}
		found++
		t.Logf("H=%d rises %d..%d shortest %d\n%s", h, lo, hi, sp, mz.String())
	}
}
