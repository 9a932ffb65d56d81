package main

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/pomdp"
)

// Config of a T-maze run.
type Config struct {
	Trials  int    // number of trials
	Seed    uint64 // seed of the environment (contexts, cue draws)
	Context int    // fixed context (envs.TMazeRewardLeft/Right), -1 to draw
}

// Steps is the number of actions per trial: start -> cue -> arm, as in the
// classic T-maze (three time points, Friston et al. 2015).
const Steps = 2

// PunishmentPreference is the log-preference of the punishment outcome. The
// envs default is -3, symmetric with the reward's +3. With a symmetric
// preference, classic (non-sophisticated) active inference never visits the
// cue: by hand, with L = ln(3 + e^r + e^p) the log-normaliser of C and the
// context unknown, one step costs
//
//	at the cue:    risk + ambiguity = (L - ln 2) + H(0.95)       = L - 0.4946
//	in an arm:     risk + ambiguity = (L - ln 2 - (r + p)/2) + 0 = L - 0.6931 - (r + p)/2
//
// (Q(o) is 1/2-1/2 over the two cues or over reward and punishment; the arms
// are unambiguous because the reward is deterministic). So the cue wins only
// when r + p < -0.397: the agent must be loss averse. With r = 3, p = -6 the
// cue costs L - 0.49 and a blind arm L + 0.81; after the cue (context known
// with 0.95) the named arm costs L - 2.75 and the cue again L - 0.12.
const PunishmentPreference = -6

// Trial is the record of one trial.
type Trial struct {
	Index     int
	Context   int   // the true context
	Path      []int // locations visited, starting with the start location
	Actions   []int
	Rewarded  bool    // the agent ended in the rewarded arm
	PriorLeft float64 // q(context = reward left) after the first observation
}

// Straight reports whether the first move went to an arm.
func (t Trial) Straight() bool {
	return len(t.Path) > 1 && (t.Path[1] == envs.TMazeLeft || t.Path[1] == envs.TMazeRight)
}

// VisitedCueFirst reports whether the first move went to the cue.
func (t Trial) VisitedCueFirst() bool { return len(t.Path) > 1 && t.Path[1] == envs.TMazeCue }

var locationNames = []string{"start", "cue", "left", "right"}

// Model returns the agent's model of the T-maze: the exact envs.TMazeModel
// with PunishmentPreference, and Dirichlet concentrations d = 1 on every
// state, so that the prior over the context is learned across trials.
func Model() (*pomdp.Model, error) {
	cfg := envs.DefaultTMazeConfig()
	cfg.PunishmentPreference = PunishmentPreference
	mm, err := envs.TMazeModel(&cfg)
	if err != nil {
		return nil, err
	}
	sp := mm.Spec()
	sp.D = nil // D = E[Dir(d)]
	sp.ConcD = make([]float64, sp.NumStates)
	for s := range sp.ConcD {
		sp.ConcD[s] = 1
	}
	return pomdp.New(sp)
}

// Run runs cfg.Trials trials of the agent with Dirichlet learning of d and
// returns their records.
func Run(cfg Config) ([]Trial, error) {
	m, err := Model()
	if err != nil {
		return nil, err
	}
	agent, err := aci.NewAgent(m, &aci.AgentOptions{Horizon: Steps})
	if err != nil {
		return nil, err
	}
	env, err := envs.NewTMaze(nil, rand.New(rand.NewPCG(cfg.Seed, 2)))
	if err != nil {
		return nil, err
	}
	if err := env.FixContext(cfg.Context); err != nil {
		return nil, err
	}
	ctx := context.Background()
	out := make([]Trial, 0, cfg.Trials)
	for i := range cfg.Trials {
		obs := env.Reset()
		if err := agent.Reset(obs); err != nil {
			return nil, err
		}
		tr := Trial{Index: i, Context: env.Context(), Path: []int{env.Location()}}
		for step := range Steps {
			u, err := agent.Act(ctx)
			if err != nil {
				return nil, fmt.Errorf("trial %d step %d: %w", i+1, step, err)
			}
			if step == 0 {
				qs := agent.Belief()
				for loc := range 4 {
					tr.PriorLeft += qs[envs.TMazeState(loc, envs.TMazeRewardLeft)]
				}
			}
			if obs, err = env.Step(u); err != nil {
				return nil, err
			}
			if err := agent.Observe(u, obs); err != nil {
				return nil, err
			}
			tr.Actions = append(tr.Actions, u)
			tr.Path = append(tr.Path, env.Location())
		}
		if err := agent.EndTrial(); err != nil {
			return nil, err
		}
		tr.Rewarded = env.Done()
		out = append(out, tr)
	}
	return out, nil
}
