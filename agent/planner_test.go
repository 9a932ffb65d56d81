package agent_test

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/pomdp"
)

// choiceFlags parses args with the choice flags registered.
func choiceFlags(t *testing.T, args ...string) *agent.ChoiceFlags {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := agent.RegisterChoiceFlags(fs, "Q(u)", "Q itself", "Q_f", true)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestChoiceFlags: the values given are set, those left out stay nil (the
// agents' default 1), and every fault is an *agent.FlagError naming its
// flag, as the command line prints it.
func TestChoiceFlags(t *testing.T) {
	fixed, err := pomdp.New(pomdp.Spec{NumStates: 1, NumObs: 1, NumActions: 2, A: []float64{1}, B: []float64{1, 1}, C: []float64{1}, D: []float64{1}})
	if err != nil {
		t.Fatal(err)
	}
	learns, err := pomdp.New(pomdp.Spec{NumStates: 1, NumObs: 1, NumActions: 2, A: []float64{1}, B: []float64{1, 1}, C: []float64{1}, D: []float64{1}, ConcD: []float64{2}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := choiceFlags(t).Choice(fixed)
	if err != nil || c.ActionPrecision != nil || c.LearningRate != nil || c.Forgetting != nil || c.ActionFactors != agent.JointActions {
		t.Errorf("no flags: %+v, %v; want every value left to the agent, joint actions", c, err)
	}
	// The defaults given explicitly change nothing, on any model.
	if c, err := choiceFlags(t, "--eta", "1", "--omega", "1").Choice(fixed); err != nil || *c.LearningRate != 1 || *c.Forgetting != 1 {
		t.Errorf("--eta 1 --omega 1 on a model that does not learn: %+v, %v", c, err)
	}
	c, err = choiceFlags(t, "--action-precision", "4", "--eta", "0.5", "--omega", "0.9", "--action-factors", "independent").Choice(learns)
	if err != nil || *c.ActionPrecision != 4 || *c.LearningRate != 0.5 || *c.Forgetting != 0.9 || c.ActionFactors != agent.IndependentActions {
		t.Errorf("every flag: %+v, %v", c, err)
	}
	for _, tc := range []struct {
		m    *pomdp.Model
		args []string
		want string
	}{
		{fixed, []string{"--action-precision", "-1"}, "--action-precision: -1, want finite >= 0"},
		{fixed, []string{"--action-precision", "NaN"}, "--action-precision: NaN, want finite >= 0"},
		{learns, []string{"--eta", "-0.1"}, "--eta: -0.1, want finite >= 0"},
		{learns, []string{"--omega", "0"}, "--omega: 0, want 0 < ω <= 1"},
		{learns, []string{"--omega", "1.5"}, "--omega: 1.5, want 0 < ω <= 1"},
		{fixed, []string{"--eta", "0.5"}, "--eta: the model has no concentrations a, b or d to learn"},
		{fixed, []string{"--omega", "0.5"}, "--omega: the model has no concentrations a, b or d to learn"},
		{fixed, []string{"--action-factors", "both"}, "--action-factors: "},
	} {
		_, err := choiceFlags(t, tc.args...).Choice(tc.m)
		var fe *agent.FlagError
		if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%v: %v, want a *FlagError starting %q", tc.args, err, tc.want)
		}
	}
}

// TestDuration: the estimate's units switch at 2 minutes, 2 hours and 3
// days, each with two significant digits (minutes whole).
func TestDuration(t *testing.T) {
	for _, tc := range []struct {
		s    float64
		want string
	}{{42, "42 s"}, {0.0123, "0.012 s"}, {119, "119 s"}, {9.5, "9.5 s"}, {120, "2 minutes"}, {780, "13 minutes"}, {7200, "2 hours"}, {6840, "114 minutes"}, {3 * 86400, "3 days"}, {3.1e5 * 86400, "3.1e+05 days"}} {
		if got := agent.Duration(tc.s); got != tc.want {
			t.Errorf("Duration(%v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

// TestVerbs: every verb but run scores choices, and the list is the order
// commands show.
func TestVerbs(t *testing.T) {
	var got []string
	for _, v := range agent.Verbs {
		got = append(got, string(v))
		if v.Scores() != (v != agent.VerbRun) {
			t.Errorf("%s.Scores() = %v", v, v.Scores())
		}
	}
	if strings.Join(got, " ") != "run replay fit simulate recover" {
		t.Errorf("Verbs = %v", got)
	}
}

// TestFindPlanner finds a planner by name and lists the names otherwise.
func TestFindPlanner(t *testing.T) {
	ps := []*agent.Planner{{Name: "one"}, {Name: "two"}}
	if p, err := agent.FindPlanner(ps, "two"); err != nil || p != ps[1] {
		t.Errorf("two: %v, %v", p, err)
	}
	if _, err := agent.FindPlanner(ps, "three"); err == nil || err.Error() != `agent: no planner "three" (planners: one, two)` {
		t.Errorf("three: %v", err)
	}
	if (&agent.FlagError{Msg: "want exactly one"}).Error() != "want exactly one" || agent.Flagf("x", "%d, want 1", 2).Error() != "--x: 2, want 1" {
		t.Error("FlagError text")
	}
}
