package btai_test

import (
	"math/rand/v2"
	"os"
	"testing"
)

// TestDrawDetourMazes prints candidate detour mazes when BTAI_DETOURS is
// set: random mazes (randomMaze, generator seed (2026, 11)) along whose
// every shortest path the distance to the exit rises 2 to 6 times, with a
// shortest path of at least 8 actions and H >= 7. examples/mazes/detour-1
// to detour-6 are six of the twelve it prints (H 7, 9, 11, 13, 15, 23).
func TestDrawDetourMazes(t *testing.T) {
	if os.Getenv("BTAI_DETOURS") == "" {
		t.Skip("set BTAI_DETOURS to print candidate detour mazes")
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
