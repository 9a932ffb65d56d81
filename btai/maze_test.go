package btai_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/envs"
)

func mazeModel(t testing.TB, name string) (*envs.Maze, *aci.POMDP) {
	t.Helper()
	mz, err := envs.LoadMaze(filepath.Join("..", "envs", "testdata", "mazes", name))
	if err != nil {
		t.Fatal(err)
	}
	mm, err := mz.Model(envs.DefaultNoise, envs.DefaultPrefPrecision)
	if err != nil {
		t.Fatal(err)
	}
	p, err := aci.NewPOMDP(SpecFromMaze(mm))
	if err != nil {
		t.Fatal(err)
	}
	return mz, p
}

// SpecFromMaze flattens an envs.MazeModel into an aci.Spec.
func SpecFromMaze(mm *envs.MazeModel) aci.Spec {
	sp := aci.Spec{NumStates: len(mm.D), NumObs: len(mm.C), NumActions: len(mm.B), C: mm.C, D: mm.D,
		Actions: mm.Actions, Observations: mm.Observations, States: mm.States}
	for _, row := range mm.A {
		sp.A = append(sp.A, row...)
	}
	for _, m := range mm.B {
		for _, row := range m {
			sp.B = append(sp.B, row...)
		}
	}
	return sp
}

func TestMazeSmoke(t *testing.T) {
	if os.Getenv("BTAI_SMOKE") == "" {
		t.Skip("set BTAI_SMOKE")
	}
	for _, name := range []string{"1.maze", "2.maze", "5.maze", "6.maze", "13.maze"} {
		mz, p := mazeModel(t, name)
		solved, steps := 0, 0
		for seed := range uint64(20) {
			ag, err := btai.NewAgent(p, nil, rand.New(rand.NewPCG(seed, 0)))
			if err != nil {
				t.Fatal(err)
			}
			ep, err := ag.RunEpisode(context.Background(), mz, 50, nil)
			if err != nil {
				t.Fatal(err)
			}
			if ep.Solved {
				solved++
				steps += ep.Steps
			}
		}
		t.Logf("%s: %d/20 solved, mean steps %.1f", name, solved, float64(steps)/float64(max(solved, 1)))
	}
}
