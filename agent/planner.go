package agent

import (
	"flag"
	"fmt"
	"strings"

	"github.com/arbor-ai/arbor/pomdp"
)

// Verb is what a driver does with a planner's agents. Every planner
// offers every verb; a command line derives its subcommands from them.
type Verb string

// The verbs, in the order commands list them.
const (
	// VerbRun has agents act in an environment (a maze, or a POMDP used as
	// the process) and records what they did.
	VerbRun Verb = "run"
	// VerbReplay drives agents along recorded behaviour, taking the recorded
	// actions and scoring each with the agent's choice probabilities.
	VerbReplay Verb = "replay"
	// VerbFit estimates each subject's parameters from recorded behaviour
	// (package fit) through replay.
	VerbFit Verb = "fit"
	// VerbSimulate draws each subject's parameters and records the behaviour
	// of an agent with them.
	VerbSimulate Verb = "simulate"
	// VerbRecover simulates subjects, fits them and compares the estimates
	// with the truth (package fit).
	VerbRecover Verb = "recover"
)

// Verbs lists every verb, in the order commands list them.
var Verbs = []Verb{VerbRun, VerbReplay, VerbFit, VerbSimulate, VerbRecover}

// Scores reports whether the verb's agents must give each choice a
// probability: every verb but Run, which may pick its action by a
// deterministic rule.
func (v Verb) Scores() bool { return v != VerbRun }

// Planner describes a planner to the drivers of every verb: the command
// line builds its subcommands, flags, help and defaults from it, and Go
// programs and package fit use the same rules through Options.Factory.
//
// A planner adds itself by filling in a Planner (aci.Description,
// btai.Description and si.Description are the three that exist); no driver changes.
type Planner struct {
	// Name is the planner's command name ("aci").
	Name string
	// Doc says in one line what the planner is.
	Doc string
	// Synopsis shows the planner's main flags as a usage line does
	// ("--horizon T [--gamma 16] ..."); every verb's synopsis has it.
	Synopsis string
	// Draws reports that the planner's decisions draw random numbers
	// besides the choice itself (a tree search does): replay then takes
	// a seed, whose streams are StepRand's.
	Draws bool
	// WorkUnit names what Decision.Work counts ("policies scored").
	WorkUnit string
	// Flags registers on fs the planner's options for verb v, each with
	// the default that v uses when the flag is omitted, and returns them.
	// A flag that v would ignore is not registered; Refused explains why
	// a flag is missing.
	Flags func(fs *flag.FlagSet, v Verb) Options
}

// Options are a planner's options read from the flags of one verb.
type Options interface {
	// Check validates the options that need no model, as soon as the
	// flags are parsed, so that a fault in them is reported before any
	// file is read.
	Check() error
	// Factory checks the options against the agents' model m, which
	// source names in errors about the model ("--model FILE"), and
	// returns the factory of the verb's agents (their parameters at the
	// options' values unless a driver sets them). Every error names the
	// flag or the file at fault; a driver reports it as bad input.
	Factory(m *pomdp.Model, source string) (Factory, error)
}

// Refuser is an Options whose verb leaves out flags that other verbs of
// the planner have: Refused returns why flag name (without dashes) does
// not apply, or "" when it is not one of them.
type Refuser interface {
	Refused(name string) string
}

// Settler is an Options that states its resolved settings (a preset's
// values with the flags given), after Factory: a JSON-encodable value
// whose String is one line for humans. Drivers record it in the
// provenance line of their output.
type Settler interface {
	Settings() fmt.Stringer
}

// Limiter is an Options whose agents are large: after Factory, MaxWorkers
// returns how many agents on model m may plan at once within the
// planner's memory bound, at most jobs and at least 1.
type Limiter interface {
	MaxWorkers(m *pomdp.Model, jobs int) int
}

// ScoringFactory is a Factory whose agents follow stricter rules where they
// score recorded choices than where they act (a search must reach the
// depth asked for): Scoring returns the factory of the scoring agents.
// A driver that both simulates and fits (recover) fits with it.
type ScoringFactory interface {
	Scoring() Factory
}

// Scoring returns fac's factory of scoring agents (ScoringFactory), or
// fac itself.
func Scoring(fac Factory) Factory {
	if s, ok := fac.(ScoringFactory); ok {
		return s.Scoring()
	}
	return fac
}

// Workers returns how many agents of opts on model m may run at once when
// jobs are asked for: jobs, or fewer where opts bound it (Limiter).
func Workers(opts Options, m *pomdp.Model, jobs int) int {
	if l, ok := opts.(Limiter); ok {
		return l.MaxWorkers(m, jobs)
	}
	return jobs
}

// Carrier is an Options whose agents carry something from one trial to
// the next besides the model's concentrations (btai's novelty counts):
// Carries reports it after Factory, and drivers then run each agent's
// trials in order.
type Carrier interface {
	Carries() bool
}

// FindPlanner returns the planner called name among ps, or an error that
// lists their names.
func FindPlanner(ps []*Planner, name string) (*Planner, error) {
	names := make([]string, len(ps))
	for i, p := range ps {
		if p.Name == name {
			return p, nil
		}
		names[i] = p.Name
	}
	return nil, fmt.Errorf("agent: no planner %q (planners: %s)", name, strings.Join(names, ", "))
}
