package agent_test

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/pomdp"
)

// misuse is one wrong use of the package's API. The call must either
// return an error (err: its message starts with "agent: ", or with field
// for the errors that name a field, and contains want) or panic with a
// message containing want, as the doc comment named by panics says it
// does; or, for ok, be accepted with the meaning that the doc comment
// named by ok gives it (call returns nil).
type misuse struct {
	name   string
	call   func() error
	want   string // a substring of the error or panic message
	panics string // doc comment that documents the panic ("Risk", "Tree.Child", "Model")
	ok     string // doc comment that gives the call its meaning
	field  string // the error names this field instead of starting with "agent: "
}

// runMisuse runs every case with recover() and checks the outcome against
// the package's doc comments, read from its source.
func runMisuse(t *testing.T, prefix string, cases []misuse) {
	t.Helper()
	docs := packageDocs(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			panicked, msg, err := protect(c.call)
			switch {
			case c.panics != "":
				if !panicked {
					t.Fatalf("no panic (error %v); %s documents one", err, c.panics)
				}
				if !strings.Contains(msg, c.want) {
					t.Errorf("panic %q, want it to contain %q", msg, c.want)
				}
				if d, ok := docs[c.panics]; !ok || !strings.Contains(d, "panic") {
					t.Errorf("the doc comment of %s does not document the panic %q", c.panics, msg)
				}
			case panicked:
				t.Fatalf("undocumented panic: %s", msg)
			case c.ok != "":
				if err != nil {
					t.Fatalf("error %v; %s gives the call a meaning", err, c.ok)
				}
				if _, ok := docs[c.ok]; !ok {
					t.Errorf("no doc comment %s", c.ok)
				}
			case err == nil:
				t.Fatal("accepted without an error")
			default:
				start := prefix
				if c.field != "" {
					start = c.field
				}
				if !strings.HasPrefix(err.Error(), start) || !strings.Contains(err.Error(), c.want) {
					t.Errorf("error %q, want one starting with %q and containing %q", err, start, c.want)
				}
			}
		})
	}
}

// protect calls f, turning a panic into its message.
func protect(f func() error) (panicked bool, msg string, err error) {
	defer func() {
		if r := recover(); r != nil {
			panicked, msg = true, fmt.Sprint(r)
		}
	}()
	return false, "", f()
}

var (
	docsOnce sync.Once
	docsMap  map[string]string
	docsErr  error
)

// packageDocs returns the doc comments of the package in the current
// directory by name: "Func", "Type" and "Type.Method".
func packageDocs(t *testing.T) map[string]string {
	t.Helper()
	docsOnce.Do(func() {
		names, err := filepath.Glob("*.go")
		if err != nil {
			docsErr = err
			return
		}
		fset := token.NewFileSet()
		var files []*ast.File
		for _, n := range names {
			if strings.HasSuffix(n, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, n, nil, parser.ParseComments)
			if err != nil {
				docsErr = err
				return
			}
			files = append(files, f)
		}
		p, err := doc.NewFromFiles(fset, files, "pkg")
		if err != nil {
			docsErr = err
			return
		}
		docsMap = map[string]string{}
		for _, f := range p.Funcs {
			docsMap[f.Name] = f.Doc
		}
		for _, ty := range p.Types {
			docsMap[ty.Name] = ty.Doc
			for _, f := range ty.Funcs {
				docsMap[f.Name] = f.Doc
			}
			for _, m := range ty.Methods {
				docsMap[ty.Name+"."+m.Name] = m.Doc
			}
		}
	})
	if docsErr != nil {
		t.Fatal(docsErr)
	}
	return docsMap
}

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

	runMisuse(t, "agent: ", []misuse{
		// Random streams and choice rules.
		{name: "Sample nil rng", call: call(func() { agent.Sample(nil, []float64{1}) }), panics: "Sample", want: "agent: Sample: nil rng"},
		{name: "Sample empty", call: call(func() { agent.Sample(rng(), nil) }), panics: "Sample", want: "no positive entry"},
		{name: "Sample zeros", call: call(func() { agent.Sample(rng(), []float64{0, 0}) }), panics: "Sample", want: "no positive entry"},
		{name: "PowerProbs empty", call: func() error { _, err := agent.PowerProbs(nil, nil, 1); return err }, want: "no weights"},
		{name: "PowerProbs empty alpha 0", call: func() error { _, err := agent.PowerProbs(nil, nil, 0); return err }, want: "no weights"},
		{name: "PowerProbs NaN weight", call: func() error { _, err := agent.PowerProbs(nil, []float64{1, math.NaN()}, 1); return err }, want: "weight 1: NaN"},
		{name: "PowerProbs negative weight", call: func() error { _, err := agent.PowerProbs(nil, []float64{-1, 2}, 1); return err }, want: "weight 0: -1"},
		{name: "PowerProbs infinite weight", call: func() error { _, err := agent.PowerProbs(nil, []float64{1, math.Inf(1)}, 1); return err }, want: "weight 1: +Inf"},
		{name: "PowerProbs no positive weight", call: func() error { _, err := agent.PowerProbs(nil, []float64{0, 0}, 1); return err }, want: "positive weight"},
		{name: "PowerProbs NaN precision", call: func() error { _, err := agent.PowerProbs(nil, []float64{1}, math.NaN()); return err }, want: "precision NaN"},
		{name: "FactorProbs wrong length", call: func() error {
			_, err := (&agent.Decision{Probs: []float64{0.5, 0.5, 0.1}}).FactorProbs(fm)
			return err
		}, want: "agent: FactorProbs: Probs: 3 entries, want 6"},
		{name: "FactorProbs nil model", call: func() error { _, err := (&agent.Decision{Probs: []float64{1}}).FactorProbs(nil); return err }, want: "model: nil"},

		// The drivers.
		{name: "RunEpisode nil agent", call: func() error { _, err := agent.RunEpisode(ctx, nil, pomdp.NewProcess(m, rng()), nil); return err }, want: "agent: RunEpisode: nil agent"},
		{name: "RunEpisode nil environment", call: func() error { _, err := agent.RunEpisode(ctx, &fakeAgent{}, nil, nil); return err }, want: "agent: RunEpisode: nil environment"},
		{name: "RunEpisode negative MaxSteps", call: func() error {
			_, err := agent.RunEpisode(ctx, &fakeAgent{}, pomdp.NewProcess(m, rng()), &agent.EpisodeSettings{MaxSteps: -1})
			return err
		}, want: "MaxSteps -1"},
		{name: "RunEpisode nil decision", call: func() error {
			_, err := agent.RunEpisode(ctx, &nilDecider{}, pomdp.NewProcess(m, rng()), &agent.EpisodeSettings{MaxSteps: 1})
			return err
		}, field: "step 0: ", want: "agent: the agent's Decide returned no decision"},
		{name: "RunEpisode nil settings and context", call: func() error {
			ep, err := agent.RunEpisode(nilCtx, &fakeAgent{probs: [][]float64{{1, 0}}}, pomdp.NewProcess(m, rng()), nil)
			if err == nil && ep.NumActions() != 0 {
				err = errors.New("actions without MaxSteps")
			}
			return err
		}, ok: "RunEpisode"},
		{name: "Replay nil agent", call: func() error { _, err := agent.Replay(ctx, nil, []int{0}, nil, nil); return err }, want: "agent: Replay: nil agent"},
		{name: "Replay no observations", call: func() error { _, err := agent.Replay(ctx, &fakeAgent{}, nil, nil, nil); return err }, want: "without observations"},
		{name: "Replay actions for observations", call: func() error { _, err := agent.Replay(ctx, &fakeAgent{}, []int{0, 1}, nil, nil); return err }, want: "0 actions for 2 observations"},
		{name: "Replay action below -1", call: func() error {
			_, err := agent.Replay(ctx, &fakeAgent{probs: [][]float64{{0.5, 0.5}}}, []int{0, 1}, []int{-5}, nil)
			var se *agent.StepError
			if !errors.As(err, &se) || se.Step != 0 {
				return fmt.Errorf("not a StepError of step 0: %w", err)
			}
			return err
		}, field: "step 0: agent: Replay: ", want: "action -5 out of range [0, 2)"},
		{name: "Replay nil decision", call: func() error { _, err := agent.Replay(ctx, &nilDecider{}, []int{0, 1}, []int{0}, nil); return err }, field: "step 0: ", want: "no decision"},
		{name: "Replay nil context", call: func() error {
			_, err := agent.Replay(nilCtx, &fakeAgent{probs: [][]float64{{0.5, 0.5}}}, []int{0, 1}, []int{1}, nil)
			return err
		}, ok: "Replay"},
		{name: "RunAgents nil newAgent", call: func() error { return agent.RunAgents(ctx, nil, nil, env, emit) }, want: "agent: RunAgents: nil newAgent"},
		{name: "RunAgents nil newEnv", call: func() error { return agent.RunAgents(ctx, nil, newAgent, nil, emit) }, want: "agent: RunAgents: nil newEnv"},
		{name: "RunAgents nil emit", call: func() error { return agent.RunAgents(ctx, nil, newAgent, env, nil) }, want: "agent: RunAgents: nil emit"},
		{name: "RunAgents nil agent made", call: func() error {
			return agent.RunAgents(ctx, nil, func() (agent.Agent, error) { return nil, nil }, env, emit)
		}, field: "agent 1 trial 1: ", want: "agent: RunAgents: newAgent returned a nil agent"},
		{name: "RunAgents nil environment made", call: func() error {
			return agent.RunAgents(ctx, nil, newAgent, func(agent.Unit) (agent.Environment, error) { return nil, nil }, emit)
		}, field: "agent 1 trial 1: ", want: "newEnv returned a nil environment"},
		{name: "RunAgents negative agents", call: func() error { return agent.RunAgents(ctx, &agent.Runs{Agents: -1}, newAgent, env, emit) }, want: "Runs.Agents -1"},
		{name: "RunAgents negative workers", call: func() error { return agent.RunAgents(ctx, &agent.Runs{Workers: -2}, newAgent, env, emit) }, want: "Runs.Workers -2"},
		{name: "RunAgents nil context and runs", call: func() error { return agent.RunAgents(nilCtx, nil, newAgent, env, emit) }, ok: "RunAgents"},
		{name: "RunBatch negative n", call: func() error { _, _, err := agent.RunBatch(ctx, -1, 1, runOK); return err }, want: "agent: RunBatch: n = -1"},
		{name: "RunBatch nil run", call: func() error { _, _, err := agent.RunBatch[int](ctx, 3, 2, nil); return err }, want: "agent: RunBatch: nil run"},
		{name: "RunBatch no workers, nil context", call: func() error { _, _, err := agent.RunBatch(nilCtx, 3, 0, runOK); return err }, ok: "RunBatch"},
		{name: "RunOrdered negative n", call: func() error { return agent.RunOrdered(ctx, -1, 1, 1, ordOK, emitOK) }, want: "agent: RunOrdered: n = -1"},
		{name: "RunOrdered nil run", call: func() error { return agent.RunOrdered[int](ctx, 2, 1, 1, nil, emitOK) }, want: "agent: RunOrdered: nil run"},
		{name: "RunOrdered nil emit", call: func() error { return agent.RunOrdered(ctx, 2, 1, 1, ordOK, nil) }, want: "agent: RunOrdered: nil emit"},
		{name: "RunOrdered negative per and workers, nil context", call: func() error { return agent.RunOrdered(nilCtx, 3, -3, -1, ordOK, emitOK) }, ok: "RunOrdered"},
	})
}
