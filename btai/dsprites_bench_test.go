package btai_test

import (
	"context"
	"testing"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/envs"
)

// BenchmarkDSpritesTrial: one trial of dSprites at granularity 1 with
// --preset 3mf (150 iterations per action, exploration 2.4), trial i
// drawn from the stream of seed 1 and index i as `arbor btai run --env
// dsprites --seed 1` draws it (docs/benchmarks.md, "dSprites").
func BenchmarkDSpritesTrial(b *testing.B) {
	w, err := envs.NewWorld("dsprites", 1)
	if err != nil {
		b.Fatal(err)
	}
	o := btai.Preset3MF()
	ag, err := btai.NewAgent(w.Model, &o, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		env := w.New(agent.WorldRand(1, i))
		if _, err := agent.RunEpisode(context.Background(), ag, env, &agent.EpisodeSettings{MaxSteps: 50, Seed: 1, Trial: i}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
