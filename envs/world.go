package envs

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/pomdp"
)

// World is a built-in environment that the command line names (--env): the
// agent's model of it, a fresh environment for every trial, and what a
// trial's record holds beyond the agent's (Trial). The only one today is
// dSprites ("dsprites", at a granularity).
type World struct {
	Name  string
	Model *pomdp.Model // the agent's model, exportable as a POMDP file
	g     int
}

// NewWorld returns the world called name ("dsprites") at granularity g.
func NewWorld(name string, g int) (*World, error) {
	if name != "dsprites" {
		return nil, fmt.Errorf("unknown environment %q (want dsprites)", name)
	}
	m, err := DSpritesModel(g)
	if err != nil {
		return nil, err
	}
	return &World{Name: name, Model: m, g: g}, nil
}

// New returns a fresh environment for one trial, drawing its initial state
// from rng.
func (w *World) New(rng *rand.Rand) agent.Environment {
	d, _ := NewDSprites(w.g, rng) // the granularity was checked by NewWorld
	return d
}

// TrialRecord is what a trial's record holds beyond the agent's: the
// initial state (x and y in pixels) and the reward.
type TrialRecord struct {
	InitialState DSpritesState
	Reward       float64
}

// Trial returns the record of the trial whose environment drew from rng
// (a stream equal to the one New was given) and that took actions: the
// environment is deterministic once its initial state is drawn, so the
// actions are replayed from it. An action the environment refuses is an
// error.
func (w *World) Trial(rng *rand.Rand, actions []int) (TrialRecord, error) {
	d, err := NewDSprites(w.g, rng)
	if err != nil {
		return TrialRecord{}, err
	}
	d.Reset()
	for t, u := range actions {
		if _, err := d.Step(u); err != nil {
			return TrialRecord{}, fmt.Errorf("step %d: %w", t, err)
		}
	}
	return TrialRecord{InitialState: d.Initial(), Reward: d.Reward()}, nil
}

// Rate is the rate of the task solved over n trials whose rewards sum to
// sum (DSpritesRate).
func (w *World) Rate(sum float64, n int) float64 { return DSpritesRate(sum, n) }

// WorldFlags are the command-line flags that choose a built-in environment
// (--env, --granularity) and export its model (--print-model).
type WorldFlags struct {
	fs          *flag.FlagSet
	env         string
	granularity int
	printModel  bool
}

// RegisterWorldFlags registers --env, --granularity and --print-model on fs.
func RegisterWorldFlags(fs *flag.FlagSet) *WorldFlags {
	f := &WorldFlags{fs: fs}
	fs.StringVar(&f.env, "env", "", "built-in environment: dsprites (the BTAI_3MF task, docs/btai.md); instead of --maze and --model")
	fs.IntVar(&f.granularity, "granularity", 4, "pixels per bin of the sprite's x and y (--env dsprites): a divisor of 32")
	fs.BoolVar(&f.printModel, "print-model", false, "write the agent's model of --env as a POMDP file (docs/formats.md) on standard output and stop")
	return f
}

// Given reports whether --env was given.
func (f *WorldFlags) Given() bool { return flagSet(f.fs, "env") }

// World returns the environment of the flags, or an error naming the flag
// at fault (an *agent.FlagError).
func (f *WorldFlags) World() (*World, error) {
	if !f.Given() {
		// A flag given at its default behaves as the flag left out.
		for _, name := range []string{"granularity", "print-model"} {
			if fl := f.fs.Lookup(name); flagSet(f.fs, name) && fl.Value.String() != fl.DefValue {
				return nil, agent.Flagf(name, "applies to --env only")
			}
		}
		return nil, nil
	}
	if f.env != "dsprites" {
		return nil, agent.Flagf("env", "%q: unknown environment (want dsprites)", f.env)
	}
	if err := CheckGranularity(f.granularity); err != nil {
		return nil, agent.Flagf("granularity", "%d: want a divisor of 32 (1, 2, 4, 8, 16 or 32)", f.granularity)
	}
	return NewWorld(f.env, f.granularity)
}

// PrintModel writes w's model as a POMDP file on out when --print-model
// was given, and reports whether it did.
func (f *WorldFlags) PrintModel(w *World, out io.Writer) (bool, error) {
	if !f.printModel {
		return false, nil
	}
	if w == nil {
		return true, errors.New("--print-model: applies to --env only")
	}
	data, err := json.Marshal(w.Model.FactorisedSpec())
	if err != nil {
		return true, err
	}
	_, err = out.Write(append(data, '\n'))
	return true, err
}

// flagSet reports whether flag name was given on fs's command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(fl *flag.Flag) { given = given || fl.Name == name })
	return given
}
