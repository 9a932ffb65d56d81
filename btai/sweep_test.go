package btai_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/pomdp"
)

// drawMazes draws n random mazes of the non-deceptive kind (H <= 6,
// shortest path >= 6 actions) from the generator seeded with seed; with
// oneRise it also requires a shortest path along which the distance to the
// exit rises at most once.
func drawMazes(t testing.TB, seed uint64, n int, oneRise bool) []*envs.Maze {
	rng := rand.New(rand.NewPCG(seed, 0))
	var out []*envs.Maze
	for len(out) < n {
		rows, cols := 7+rng.IntN(4), 7+rng.IntN(4)
		mz := randomMaze(t, rng, rows, cols, 0.25+0.1*rng.Float64())
		if mz == nil {
			continue
		}
		sp, _ := mz.ShortestPath()
		h := horizonH(mz, 40)
		if os.Getenv("BTAI_RANDOM_KIND") == "rise1-deep" {
			// The literal "rises at most once" with a deep pocket (H > 6).
			if lo, _ := rises(mz); sp < 6 || lo > 1 || h <= 6 {
				continue
			}
		} else if sp < 6 || h > 6 || h < 2 {
			continue
		}
		if lo, _ := rises(mz); oneRise && lo > 1 {
			continue
		}
		out = append(out, mz)
	}
	return out
}

// mazePOMDP returns the agent's model of mz at preference precision pref.
func mazePOMDP(t testing.TB, mz *envs.Maze, pref float64) *pomdp.Model {
	t.Helper()
	p, err := mz.POMDP(envs.DefaultNoise, pref)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMazeSweep prints a success table when BTAI_SWEEP is set to
// "selection:exploration:iterations[,...]", e.g. "normalized-uct:0.7:500,1000";
// BTAI_PREF lists preference precisions (default 3), BTAI_RANDOM the number
// of unseen random mazes beside the shipped ones (default 0).
func TestMazeSweep(t *testing.T) {
	spec := os.Getenv("BTAI_SWEEP")
	if spec == "" {
		t.Skip("set BTAI_SWEEP")
	}
	parts := strings.Split(spec, ":")
	sel, err := btai.ParseSelection(parts[0])
	if err != nil {
		t.Fatal(err)
	}
	c, err := strconv.ParseFloat(parts[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	prefs := "3"
	if p := os.Getenv("BTAI_PREF"); p != "" {
		prefs = p
	}
	nrand, _ := strconv.Atoi(os.Getenv("BTAI_RANDOM"))
	type named struct {
		name string
		mz   *envs.Maze
	}
	var mazes []named
	ship := referenceMazes
	if v := os.Getenv("BTAI_MAZES"); v != "" {
		ship = strings.Split(v, ",")
	}
	for _, n := range ship {
		if n == "none" {
			break
		}
		if strings.Contains(n, "/") {
			mz, err := envs.LoadMaze(n)
			if err != nil {
				t.Fatal(err)
			}
			mazes = append(mazes, named{n[strings.LastIndex(n, "/")+1:], mz})
			continue
		}
		mz, _ := mazeModel(t, n)
		mazes = append(mazes, named{n, mz})
	}
	rseed := uint64(99)
	if v := os.Getenv("BTAI_RANDOM_SEED"); v != "" {
		x, _ := strconv.Atoi(v)
		rseed = uint64(x)
	}
	var pick map[int]bool
	if v := os.Getenv("BTAI_RANDOM_PICK"); v != "" {
		pick = map[int]bool{}
		for _, f := range strings.Split(v, ",") {
			i, _ := strconv.Atoi(f)
			pick[i] = true
		}
	}
	for i, mz := range drawMazes(t, rseed, nrand, os.Getenv("BTAI_RANDOM_KIND") == "one-rise") {
		if pick == nil || pick[i] {
			mazes = append(mazes, named{fmt.Sprintf("random-%d", i), mz})
		}
	}
	for _, its := range strings.Split(parts[2], ",") {
		n, _ := strconv.Atoi(its)
		for _, ps := range strings.Split(prefs, ",") {
			pref, _ := strconv.ParseFloat(ps, 64)
			o := btai.DefaultOptions()
			o.Selection, o.Exploration, o.Iterations = sel, ptr(c), n
			if v := os.Getenv("BTAI_ACTION"); v != "" {
				if o.ActionSelection, err = btai.ParseActionSelection(v); err != nil {
					t.Fatal(err)
				}
			}
			if v := os.Getenv("BTAI_PROPAGATION"); v != "" {
				if o.Propagation, err = btai.ParsePropagation(v); err != nil {
					t.Fatal(err)
				}
			}
			if v := os.Getenv("BTAI_INFERENCE"); v != "" {
				if o.Inference, err = btai.ParseInference(v); err != nil {
					t.Fatal(err)
				}
			}
			if v := os.Getenv("BTAI_NOVELTY"); v != "" {
				o.Novelty = true
				x, _ := strconv.ParseFloat(v, 64)
				o.NoveltyScale = ptr(x)
				if v := os.Getenv("BTAI_NOVELTY_PRIOR"); v != "" {
					o.NoveltyPrior, _ = strconv.ParseFloat(v, 64)
				}
				o.NoveltyCarry = os.Getenv("BTAI_CARRY") != ""
			}
			good, ms := 0, 0.0
			var line []string
			for _, m := range mazes {
				sp, _ := m.mz.ShortestPath()
				p := mazePOMDP(t, m.mz, pref)
				solved, secs, steps := 0, 0.0, 0
				var ag *btai.Agent
				for seed := range uint64(20) {
					// With carried-over counts, one agent runs the 20
					// episodes in turn.
					if ag == nil || !o.NoveltyCarry {
						if ag, err = btai.NewAgent(p, &o, nil); err != nil {
							t.Fatal(err)
						}
					}
					limit := 2*sp + 5
					if o.Novelty {
						limit = 4*sp + 10
					}
					ep, err := agent.RunEpisode(context.Background(), ag, m.mz, &agent.EpisodeSettings{MaxSteps: limit, Seed: seed})
					if err != nil {
						t.Fatal(err)
					}
					if ep.Solved {
						solved++
					}
					secs += ep.PlanningSeconds
					steps += ep.NumActions()
				}
				if solved >= 19 {
					good++
				}
				line = append(line, fmt.Sprintf("%s(H%d) %d", m.name, horizonH(m.mz, 40), solved))
				ms += 1000 * secs / float64(steps)
			}
			fmt.Printf("%v C=%g it=%d pref=%g nov=%v: %d/%d mazes >= 19/20 (%.1f ms/action): %s\n", sel, c, n, pref, *o.NoveltyScale*b2f(o.Novelty), good, len(mazes), ms/float64(len(mazes)), strings.Join(line, ", "))
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
