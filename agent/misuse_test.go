package agent_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/internal/misusetest"
	"github.com/arbor-ai/arbor/pomdp"
)

// nilDecider is an agent whose Decide returns neither a decision nor an
// error.
type nilDecider struct{ fakeAgent }

func (*nilDecider) Decide(context.Context, *rand.Rand) (*agent.Decision, error) { return nil, nil }

// TestMisuse runs every misuse of the package's API that the package
// refuses: with an error, or with the panic that a doc comment documents
// (a programming error, as the standard library panics on), or gives a
// documented meaning (a nil context, a nil generator).
func TestMisuse(t *testing.T) {
	m, err := pomdp.Load("../pomdp/testdata/tiny-pomdp.json") // 3 states, 2 observations, 2 actions
	if err != nil {
		t.Fatal(err)
	}
	fm := twoControlModel(t) // factors of 2 and 3 states, 6 joint actions
	rng := func() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }
	ctx := context.Background()
	var nilCtx context.Context // a nil context, as a caller may pass one
	call := func(f func()) func() error { return func() error { f(); return nil } }
	runOK := func(context.Context, int) (int, error) { return 0, nil }
	ordOK := func(context.Context, int, int) (int, error) { return 0, nil }
	emitOK := func(int, int) error { return nil }
	newAgent := func() (agent.Agent, error) { return &fakeAgent{probs: [][]float64{{0.5, 0.5}}}, nil }
	env := func(agent.Unit) (agent.Environment, error) { return pomdp.NewProcess(m, rng()), nil }
	emit := func(agent.Unit, *agent.Episode) error { return nil }

	misusetest.Run(t, "agent: ", []misusetest.Case{
		// Random streams and choice rules.
		{Name: "Sample nil rng", Call: call(func() { agent.Sample(nil, []float64{1}) }), Panics: "Sample", Msg: "agent: Sample: nil rng"},
		{Name: "Sample empty", Call: call(func() { agent.Sample(rng(), nil) }), Panics: "Sample", Msg: "no positive entry"},
		{Name: "Sample zeros", Call: call(func() { agent.Sample(rng(), []float64{0, 0}) }), Panics: "Sample", Msg: "no positive entry"},
		{Name: "PowerProbs empty", Call: func() error { _, err := agent.PowerProbs(nil, nil, 1); return err }, Msg: "no weights"},
		{Name: "PowerProbs empty alpha 0", Call: func() error { _, err := agent.PowerProbs(nil, nil, 0); return err }, Msg: "no weights"},
		{Name: "PowerProbs NaN weight", Call: func() error { _, err := agent.PowerProbs(nil, []float64{1, math.NaN()}, 1); return err }, Msg: "weight 1: NaN"},
		{Name: "PowerProbs negative weight", Call: func() error { _, err := agent.PowerProbs(nil, []float64{-1, 2}, 1); return err }, Msg: "weight 0: -1"},
		{Name: "PowerProbs infinite weight", Call: func() error { _, err := agent.PowerProbs(nil, []float64{1, math.Inf(1)}, 1); return err }, Msg: "weight 1: +Inf"},
		{Name: "PowerProbs no positive weight", Call: func() error { _, err := agent.PowerProbs(nil, []float64{0, 0}, 1); return err }, Msg: "positive weight"},
		{Name: "PowerProbs NaN precision", Call: func() error { _, err := agent.PowerProbs(nil, []float64{1}, math.NaN()); return err }, Msg: "precision NaN"},
		{Name: "FactorProbs wrong length", Call: func() error {
			_, err := (&agent.Decision{Probs: []float64{0.5, 0.5, 0.1}}).FactorProbs(fm)
			return err
		}, Msg: "agent: FactorProbs: Probs: 3 entries, want 6"},
		{Name: "FactorProbs nil model", Call: func() error { _, err := (&agent.Decision{Probs: []float64{1}}).FactorProbs(nil); return err }, Msg: "model: nil"},

		// The drivers.
		{Name: "RunEpisode nil agent", Call: func() error { _, err := agent.RunEpisode(ctx, nil, pomdp.NewProcess(m, rng()), nil); return err }, Msg: "agent: RunEpisode: nil agent"},
		{Name: "RunEpisode nil environment", Call: func() error { _, err := agent.RunEpisode(ctx, &fakeAgent{}, nil, nil); return err }, Msg: "agent: RunEpisode: nil environment"},
		{Name: "RunEpisode negative MaxSteps", Call: func() error {
			_, err := agent.RunEpisode(ctx, &fakeAgent{}, pomdp.NewProcess(m, rng()), &agent.EpisodeSettings{MaxSteps: -1})
			return err
		}, Msg: "MaxSteps -1"},
		{Name: "RunEpisode nil decision", Call: func() error {
			_, err := agent.RunEpisode(ctx, &nilDecider{}, pomdp.NewProcess(m, rng()), &agent.EpisodeSettings{MaxSteps: 1})
			return err
		}, Prefix: "step 0: ", Msg: "agent: the agent's Decide returned no decision"},
		{Name: "RunEpisode nil settings and context", Call: func() error {
			ep, err := agent.RunEpisode(nilCtx, &fakeAgent{probs: [][]float64{{1, 0}}}, pomdp.NewProcess(m, rng()), nil)
			if err == nil && ep.NumActions() != 0 {
				err = errors.New("actions without MaxSteps")
			}
			return err
		}, OK: "RunEpisode"},
		{Name: "Replay nil agent", Call: func() error { _, err := agent.Replay(ctx, nil, []int{0}, nil, nil); return err }, Msg: "agent: Replay: nil agent"},
		{Name: "Replay no observations", Call: func() error { _, err := agent.Replay(ctx, &fakeAgent{}, nil, nil, nil); return err }, Msg: "without observations"},
		{Name: "Replay actions for observations", Call: func() error { _, err := agent.Replay(ctx, &fakeAgent{}, []int{0, 1}, nil, nil); return err }, Msg: "0 actions for 2 observations"},
		{Name: "Replay action below -1", Call: func() error {
			_, err := agent.Replay(ctx, &fakeAgent{probs: [][]float64{{0.5, 0.5}}}, []int{0, 1}, []int{-5}, nil)
			var se *agent.StepError
			if !errors.As(err, &se) || se.Step != 0 {
				return fmt.Errorf("not a StepError of step 0: %w", err)
			}
			return err
		}, Prefix: "step 0: agent: Replay: ", Msg: "action -5 out of range [0, 2)"},
		{Name: "Replay nil decision", Call: func() error { _, err := agent.Replay(ctx, &nilDecider{}, []int{0, 1}, []int{0}, nil); return err }, Prefix: "step 0: ", Msg: "no decision"},
		{Name: "Replay nil context", Call: func() error {
			_, err := agent.Replay(nilCtx, &fakeAgent{probs: [][]float64{{0.5, 0.5}}}, []int{0, 1}, []int{1}, nil)
			return err
		}, OK: "Replay"},
		{Name: "RunAgents nil newAgent", Call: func() error { return agent.RunAgents(ctx, nil, nil, env, emit) }, Msg: "agent: RunAgents: nil newAgent"},
		{Name: "RunAgents nil newEnv", Call: func() error { return agent.RunAgents(ctx, nil, newAgent, nil, emit) }, Msg: "agent: RunAgents: nil newEnv"},
		{Name: "RunAgents nil emit", Call: func() error { return agent.RunAgents(ctx, nil, newAgent, env, nil) }, Msg: "agent: RunAgents: nil emit"},
		{Name: "RunAgents nil agent made", Call: func() error {
			return agent.RunAgents(ctx, nil, func() (agent.Agent, error) { return nil, nil }, env, emit)
		}, Prefix: "agent 1 trial 1: ", Msg: "agent: RunAgents: newAgent returned a nil agent"},
		{Name: "RunAgents nil environment made", Call: func() error {
			return agent.RunAgents(ctx, nil, newAgent, func(agent.Unit) (agent.Environment, error) { return nil, nil }, emit)
		}, Prefix: "agent 1 trial 1: ", Msg: "newEnv returned a nil environment"},
		{Name: "RunAgents negative agents", Call: func() error { return agent.RunAgents(ctx, &agent.Runs{Agents: -1}, newAgent, env, emit) }, Msg: "Runs.Agents -1"},
		{Name: "RunAgents negative workers", Call: func() error { return agent.RunAgents(ctx, &agent.Runs{Workers: -2}, newAgent, env, emit) }, Msg: "Runs.Workers -2"},
		{Name: "RunAgents negative jobs", Call: func() error { return agent.RunAgents(ctx, &agent.Runs{Jobs: -3}, newAgent, env, emit) }, Msg: "Runs.Jobs -3"},
		{Name: "RunAgents nil context and runs", Call: func() error { return agent.RunAgents(nilCtx, nil, newAgent, env, emit) }, OK: "RunAgents"},
		{Name: "RunBatch negative n", Call: func() error { _, _, err := agent.RunBatch(ctx, -1, 1, runOK); return err }, Msg: "agent: RunBatch: n = -1"},
		{Name: "RunBatch nil run", Call: func() error { _, _, err := agent.RunBatch[int](ctx, 3, 2, nil); return err }, Msg: "agent: RunBatch: nil run"},
		{Name: "RunBatch no workers, nil context", Call: func() error { _, _, err := agent.RunBatch(nilCtx, 3, 0, runOK); return err }, OK: "RunBatch"},
		{Name: "RunOrdered negative n", Call: func() error { return agent.RunOrdered(ctx, -1, 1, 1, ordOK, emitOK) }, Msg: "agent: RunOrdered: n = -1"},
		{Name: "RunOrdered nil run", Call: func() error { return agent.RunOrdered[int](ctx, 2, 1, 1, nil, emitOK) }, Msg: "agent: RunOrdered: nil run"},
		{Name: "RunOrdered nil emit", Call: func() error { return agent.RunOrdered(ctx, 2, 1, 1, ordOK, nil) }, Msg: "agent: RunOrdered: nil emit"},
		{Name: "RunOrdered negative per and workers, nil context", Call: func() error { return agent.RunOrdered(nilCtx, 3, -3, -1, ordOK, emitOK) }, OK: "RunOrdered"},
	})
}
