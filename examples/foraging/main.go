// Command foraging writes a factorised POMDP in Go and runs both agents in
// it: an animal in a corridor of three rooms looks for food that lies in
// one of them. Two hidden-state factors (where the animal is, which it
// moves; where the food is, which it does not) and three modalities (the
// room it sees, a smell that grows stronger near the food, and whether it
// eats). The tutorial docs/tutorial-factorised-go.md explains every line.
//
//	go run ./examples/foraging             # both agents, six episodes each
//	go run ./examples/foraging -json       # the model as a POMDP file
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/btai"
	"github.com/arbor-ai/arbor/pomdp"
)

// The rooms, in corridor order: the states of both factors.
var rooms = []string{"left", "middle", "right"}

// Spec returns the model. Layouts are flat and row-major:
// B[u][next][prev] per factor, A[o][deps...] per modality.
func Spec() pomdp.FactorisedSpec {
	const n = 3
	// position: stay, or one room to the left or right (a wall stops it).
	move := make([]float64, 3*n*n)
	for u, step := range []int{0, -1, +1} {
		for prev := range n {
			next := min(max(prev+step, 0), n-1)
			move[(u*n+next)*n+prev] = 1
		}
	}
	// room: the animal sees where it is.
	see := make([]float64, n*n)
	for s := range n {
		see[s*n+s] = 1
	}
	// smell: none, faint or strong, by the distance from the food;
	// eat: nothing or food, food only in the food's room.
	smell := make([]float64, 3*n*n)
	eat := make([]float64, 2*n*n)
	byDistance := [][3]float64{
		{0, 0.1, 0.9}, // in the food's room: mostly strong
		{0.2, 0.8, 0}, // next to it: mostly faint
		{0.9, 0.1, 0}, // two rooms away: mostly nothing
	}
	for pos := range n {
		for food := range n {
			d := max(pos-food, food-pos)
			for o, p := range byDistance[d] {
				smell[(o*n+pos)*n+food] = p
			}
			if pos == food {
				eat[(1*n+pos)*n+food] = 1
			} else {
				eat[(0*n+pos)*n+food] = 1
			}
		}
	}
	return pomdp.FactorisedSpec{
		Factors: []pomdp.Factor{{
			Name: "position", NumStates: n, States: rooms,
			Controls: []string{"stay", "go-left", "go-right"},
			B:        move, D: []float64{0, 1, 0}, // it starts in the middle
		}, {
			Name: "food", NumStates: n, States: rooms,
			B: []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}, // uncontrolled: the food stays put
			D: []float64{1.0 / 3, 1.0 / 3, 1.0 / 3},
		}},
		Modalities: []pomdp.Modality{{
			Name: "room", NumOutcomes: n, Outcomes: rooms,
			DependsOn: []string{"position"}, A: see,
		}, {
			Name: "smell", NumOutcomes: 3, Outcomes: []string{"none", "faint", "strong"},
			DependsOn: []string{"position", "food"}, A: smell,
		}, {
			Name: "eat", NumOutcomes: 2, Outcomes: []string{"nothing", "food"},
			DependsOn: []string{"position", "food"}, A: eat,
			LogC: []float64{0, 3}, // eating is worth 3 nats
		}},
	}
}

// Steps is the number of actions per episode.
const Steps = 4

func main() {
	asJSON := flag.Bool("json", false, "print the model as a POMDP file and exit")
	flag.Parse()
	if err := run(*asJSON); err != nil {
		fmt.Fprintln(os.Stderr, "foraging:", err)
		os.Exit(1)
	}
}

func run(asJSON bool) error {
	m, err := pomdp.NewFactorised(Spec())
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", " ")
		return enc.Encode(m.FactorisedSpec())
	}
	fmt.Println(m.NumFactors(), "factors,", m.NumModalities(), "modalities,", m.NumActions(), "actions")

	ctx := context.Background()
	classic, err := aci.NewAgent(m, &aci.AgentOptions{Horizon: 3})
	if err != nil {
		return err
	}
	fmt.Println("classic active inference (policies of 3 actions):")
	for seed := range uint64(6) {
		world := pomdp.NewProcess(m, rand.New(rand.NewPCG(seed, 7)))
		ep, err := agent.RunEpisode(ctx, classic, world, &agent.EpisodeSettings{MaxSteps: Steps})
		if err != nil {
			return err
		}
		report(m, world, ep.Actions(), ep.Observations())
	}

	fmt.Println("branching-time active inference (1,000 planning iterations):")
	for seed := range uint64(6) {
		planner, err := btai.NewAgent(m, nil, nil)
		if err != nil {
			return err
		}
		world := pomdp.NewProcess(m, rand.New(rand.NewPCG(seed, 7)))
		ep, err := agent.RunEpisode(ctx, planner, world, &agent.EpisodeSettings{MaxSteps: Steps, Seed: seed})
		if err != nil {
			return err
		}
		report(m, world, ep.Actions(), ep.Observations())
	}
	return nil
}

// report prints one episode: where the food was, what the animal did and
// smelled, and how many meals it had.
func report(m *pomdp.Model, world *pomdp.Process, actions, observations []int) {
	food := world.State() % len(rooms) // the joint state: position slowest, then food
	var steps []string
	meals := 0
	for t, o := range observations {
		out := m.DecodeObs(nil, o) // room, smell, eat
		step := m.OutcomeName(0, out[0]) + "/" + m.OutcomeName(1, out[1])
		if t > 0 {
			step = m.ActionName(actions[t-1]) + " -> " + step
		}
		if out[2] == 1 {
			step += " (eats)"
			meals++
		}
		steps = append(steps, step)
	}
	fmt.Printf("  food %-6s  meals %d  %s\n", rooms[food], meals, strings.Join(steps, ", "))
}
