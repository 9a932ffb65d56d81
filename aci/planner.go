package aci

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/pomdp"
)

// Description describes classic active inference to the drivers of every verb
// (agent.Planner): its flags, their defaults per verb, and its factory.
var Description = &agent.Planner{
	Name:     "aci",
	Doc:      "classic active inference",
	Synopsis: "--horizon T [--gamma 16 | --infer-gamma [--beta 1]] [--habits E] [--novelty] [--past filter|vmp] [--action-precision α] [--action-factors joint|independent] [--eta η] [--omega ω] [--max-minutes 10]",
	WorkUnit: "policies scored",
	Flags:    registerFlags,
}

// MaxMinutesUsage is the help of --max-minutes, on every aci command that
// plans.
const MaxMinutesUsage = "refuse when one scoring of every policy is estimated to take longer than this many minutes " +
	"(the estimate, from the model's sizes, is printed with the refusal)"

// flags are the classic agent's options as one verb reads them.
type flags struct {
	fs         *flag.FlagSet
	verb       agent.Verb
	horizon    *int
	gamma      *float64
	inferGamma *bool
	beta       *float64
	habits     *string
	novelty    *bool
	past       *string
	sel        *string // nil where the verb scores choices
	choice     *agent.ChoiceFlags
	maxMin     *float64
}

func registerFlags(fs *flag.FlagSet, v agent.Verb) agent.Options {
	f := &flags{fs: fs, verb: v}
	f.horizon = fs.Int("horizon", 0, "policy length T (required): |U|^T policies are scored at every step")
	f.gamma = fs.Float64("gamma", DefaultGamma, "fixed policy precision: q(pi) = softmax(-gamma G)")
	f.inferGamma = fs.Bool("infer-gamma", false, "infer the precision with prior Gamma(1, beta) instead of fixing it; "+
		"gamma moves only when something besides G shapes the policy prior, so give --habits (without them it stays at its prior mean 1/beta)")
	f.habits = fs.String("habits", "", "habits E: a prior over the first action, comma-separated probabilities, one per action (e.g. 0.7,0.1,0.1,0.1,0)")
	f.beta = fs.Float64("beta", DefaultBeta, "rate of the Gamma(1, beta) prior of the precision (with --infer-gamma)")
	f.novelty = fs.Bool("novelty", false, "add the novelty of A to the expected free energy (needs concentrations a)")
	f.past = fs.String("past", pomdp.PastFilter.String(), "past inference: filter (exact filtering of the present state, as SPM and pymdp; smoothing for learning), vmp (the paper's mean field over the past) "+
		"or factorised (filtering under a belief that factorises over the factors, for models too large to filter exactly)")
	switch v {
	case agent.VerbRun:
		f.sel = fs.String("select", SelectArgmax, "action selection: argmax (the most probable action of the model average) or sample (a draw from P(u) = σ(α ln P_marginal(u)))")
	case agent.VerbSimulate, agent.VerbRecover:
		f.sel = fs.String("select", SelectSample, "action selection: sample (a draw from P(u) = σ(α ln P_marginal(u)): simulated behaviour is drawn) or argmax (the most probable action of the model average)")
	}
	f.choice = agent.RegisterChoiceFlags(fs, "P_marginal(u)", "the model average itself; pymdp's default is 16, SPM's 512", "P_f", f.sel != nil)
	f.maxMin = fs.Float64("max-minutes", 10, MaxMinutesUsage)
	return f
}

// Check validates the flags that need no model (the rest need the model's
// actions and concentrations: Factory).
func (f *flags) Check() error {
	given := agent.Given(f.fs)
	switch {
	case !given["horizon"]:
		return apiError(agent.Flagf("horizon", "missing (want the policy length T >= 1)"))
	case *f.horizon < 1:
		return apiError(agent.Flagf("horizon", "%d, want >= 1", *f.horizon))
	}
	return nil
}

// Refused explains the flags of aci run that a verb scoring recorded
// choices leaves out.
func (f *flags) Refused(name string) string {
	if name == "select" && f.sel == nil {
		return "aci " + string(f.verb) + " scores every recorded choice with P(u) = σ(α ln P_marginal(u)), whatever the rule (--select belongs to aci run; --action-precision sets α)"
	}
	return ""
}

// Factory checks the flags against model m and returns the factory of the
// verb's agents.
func (f *flags) Factory(m *pomdp.Model, source string) (agent.Factory, error) {
	o, err := f.options(m)
	if err != nil {
		return nil, apiError(err)
	}
	if err := CheckPlanTime(m, o.Horizon, *f.maxMin); err != nil {
		return nil, apiError(err)
	}
	if _, err := NewAgent(m, o); err != nil {
		return nil, apiError(&agent.FlagError{Msg: source + ": " + err.Error()})
	}
	return Factory{Options: *o}, nil
}

// options checks the flags and returns the agent's options for model m.
func (f *flags) options(m *pomdp.Model) (*AgentOptions, error) {
	if err := f.Check(); err != nil {
		return nil, err
	}
	given := agent.Given(f.fs)
	switch {
	case math.IsNaN(*f.gamma) || math.IsInf(*f.gamma, 0) || *f.gamma <= 0:
		return nil, agent.Flagf("gamma", "%v, want finite > 0", *f.gamma)
	case math.IsNaN(*f.beta) || math.IsInf(*f.beta, 0) || *f.beta <= 0:
		return nil, agent.Flagf("beta", "%v, want finite > 0", *f.beta)
	case f.sel != nil && *f.sel != SelectArgmax && *f.sel != SelectSample:
		return nil, agent.Flagf("select", "%q, want %s or %s", *f.sel, SelectArgmax, SelectSample)
	}
	choice, err := f.choice.Choice(m)
	if err != nil {
		return nil, err
	}
	// Flags the agent would ignore are refused.
	switch {
	case *f.inferGamma && given["gamma"]:
		return nil, agent.Flagf("gamma", "the fixed precision, unused with --infer-gamma (whose prior is Gamma(1, --beta))")
	case !*f.inferGamma && given["beta"]:
		return nil, agent.Flagf("beta", "the rate of the precision's prior, which needs --infer-gamma")
	}
	if _, err := NumPolicies(m.NumActions(), *f.horizon, math.MaxInt); err != nil {
		return nil, &agent.FlagError{Msg: "--" + err.Error()}
	}
	var habits []float64
	if *f.habits != "" {
		var err error
		if habits, err = parseHabits(*f.habits, m.NumActions()); err != nil {
			return nil, err
		}
	}
	past, err := pomdp.ParsePastInference(*f.past)
	if err != nil {
		return nil, agent.Flagf("past", "%s", reason(err))
	}
	o := &AgentOptions{
		Horizon: *f.horizon, Gamma: *f.gamma, InferGamma: *f.inferGamma, Beta: *f.beta,
		Novelty: *f.novelty, Habits: habits, Past: past, ActionFactors: choice.ActionFactors,
		ActionPrecision: choice.ActionPrecision, LearningRate: choice.LearningRate, Forgetting: choice.Forgetting,
	}
	if f.sel != nil {
		o.Select = *f.sel
	}
	return o, nil
}

// parseHabits reads --habits: one probability per action, summing to 1.
func parseHabits(s string, nu int) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != nu {
		return nil, agent.Flagf("habits", "%d entries, want %d (one per action)", len(parts), nu)
	}
	e := make([]float64, nu)
	sum := 0.0
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return nil, &agent.FlagError{Msg: "--habits[" + strconv.Itoa(i) + "]: " + strconv.Quote(p) + ", want a finite probability >= 0"}
		}
		e[i] = x
		sum += x
	}
	if math.Abs(sum-1) > pomdp.Tolerance {
		return nil, agent.Flagf("habits", "sums to %.10g, want 1 (tolerance 1e-06)", sum)
	}
	return e, nil
}

// CheckPlanTime refuses a horizon whose policy walk is estimated
// (EstimatePlanSeconds) to take more than maxMin minutes per planning
// step, with the count, the estimate and the flag that overrides it. A
// nil or invalid model is pomdp.Check's error.
func CheckPlanTime(m *pomdp.Model, horizon int, maxMin float64) error {
	if !(maxMin > 0) || math.IsInf(maxMin, 0) {
		return apiError(agent.Flagf("max-minutes", "%v, want a finite number > 0", maxMin))
	}
	if err := pomdp.Check(m); err != nil {
		return apiError(err)
	}
	est := EstimatePlanSeconds(m, horizon)
	if est <= 60*maxMin {
		return nil
	}
	count := math.Pow(float64(m.NumActions()), float64(horizon))
	return apiError(&agent.FlagError{Msg: fmt.Sprintf("--horizon %d: %d^%d = %.3g policies would take about %s per planning step (estimated from %d states, %d observations, %d actions), over --max-minutes %g; raise --max-minutes to run it anyway",
		horizon, m.NumActions(), horizon, count, agent.Duration(est), m.NumStates(), m.NumObs(), m.NumActions(), maxMin)})
}
