package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/internal/output"
	"github.com/arbor-ai/arbor/pomdp"
)

// aciEvalFlags are the flags of arbor aci eval.
type aciEvalFlags struct {
	model   string
	obsRaw  string
	obs     int
	horizon int
	gamma   float64
	top     int
	asJSON  bool
	maxMin  float64
}

const aciEvalSynopsis = "arbor aci eval --model M --obs O0 --horizon T [--gamma 16] [--top 10] [--json]"

func runACIEval(args []string, stdout io.Writer) error {
	fset := flag.NewFlagSet("aci eval", flag.ContinueOnError)
	var f aciEvalFlags
	fset.Float64Var(&f.maxMin, "max-minutes", 10, aci.MaxMinutesUsage)
	fset.StringVar(&f.model, "model", "", "POMDP file (docs/formats.md)")
	fset.StringVar(&f.obsRaw, "obs", "", "the first observation O0: its index, or one outcome index per modality, comma-separated (0,2) (required)")
	fset.IntVar(&f.horizon, "horizon", 0, "policy length T (required); |U|^T policies are scored")
	fset.Float64Var(&f.gamma, "gamma", 16, "policy precision: q_pi = softmax(-gamma G)")
	fset.IntVar(&f.top, "top", 10, "human output: list this many lowest-G policies")
	fset.BoolVar(&f.asJSON, "json", false, "print every policy as JSON (docs/cli.md)")
	pos, err := parseFlags(fset, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, helpText(fset, aciEvalSynopsis))
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return badInput("unexpected argument %q (usage: %s)", pos[0], aciEvalSynopsis)
	}
	// Flags that need no model first, so that their errors do not depend
	// on the file. A flag left out is "missing"; a flag given with an
	// invalid value (even one equal to the default) is reported with it.
	given := agent.Given(fset)
	if !given["horizon"] {
		return badInput("--horizon: missing (want the policy length T >= 1)")
	}
	if f.horizon < 1 {
		return badInput("--horizon: %d, want >= 1", f.horizon)
	}
	if math.IsNaN(f.gamma) || math.IsInf(f.gamma, 0) || f.gamma <= 0 {
		return badInput("--gamma: %v, want finite > 0", f.gamma)
	}
	if f.top < 1 {
		return badInput("--top: %d, want >= 1", f.top)
	}
	if f.asJSON && given["top"] {
		return badInput("--top: applies to the human output, not to --json (which lists every policy)")
	}
	m, err := loadPOMDP(f.model)
	if err != nil {
		return err
	}
	if !given["obs"] {
		return badInput("--obs: missing (want an observation index in [0, %d), from --model %s)", m.NumObs(), f.model)
	}
	if f.obs, err = obsArg(f.obsRaw, m, f.model); err != nil {
		return err
	}
	// The agent's view: with concentrations a, b, d the planner uses their
	// expectations (a file may also give A, the world's likelihood).
	if m, err = m.AgentView(); err != nil {
		return badInput("--model %s: %v", f.model, err)
	}
	if f.asJSON {
		if _, err := aci.NumPolicies(m.NumActions(), f.horizon, aci.MaxPolicies); err != nil {
			return badInput("--%v (--json lists every policy; the human output streams any number)", err)
		}
		if err := asInput(aci.CheckPlanTime(m, f.horizon, f.maxMin)); err != nil {
			return err
		}
		res, err := untilDone(commandContext(), func() (*aci.EvalResult, error) { return aci.Eval(m, f.obs, f.horizon, f.gamma) })
		if errors.Is(err, context.Canceled) {
			return err
		}
		if err != nil {
			// The library names its parameters: gamma, horizon and obs are
			// the flags of the same names (and pomdp's reason for obs names
			// the observation again, as in aciPrintEval).
			for _, p := range []string{"gamma", "horizon", "obs"} {
				if msg := output.Reason(err); strings.HasPrefix(msg, p) {
					return badInput("--%s", strings.Replace(msg, fmt.Sprintf("pomdp: observation %d: ", f.obs), "", 1))
				}
			}
			return badInput("--model %s: %v", f.model, err)
		}
		return aciWriteEvalJSON(stdout, m, res)
	}
	return aciPrintEval(stdout, m, &f)
}

// aciPrintEval is the human output of arbor aci eval. It streams the policy
// tree with aci.TopPolicies, so any horizon whose |U|^T fits in an int works
// in O(T |S| + top T) memory.
func aciPrintEval(w io.Writer, m *pomdp.Model, f *aciEvalFlags) error {
	if _, err := aci.NumPolicies(m.NumActions(), f.horizon, math.MaxInt); err != nil {
		return badInput("--%s", output.Reason(err))
	}
	if err := asInput(aci.CheckPlanTime(m, f.horizon, f.maxMin)); err != nil {
		return err
	}
	qs, err := pomdp.StatePosterior(nil, m, f.obs)
	if err != nil {
		return badInput("--obs %s: %s (--model %s)", f.obsRaw, strings.TrimPrefix(output.Reason(err), fmt.Sprintf("observation %d: ", f.obs)), f.model)
	}
	ctx := commandContext()
	rk, err := aci.TopPoliciesContext(ctx, m, qs, f.horizon, f.top, f.gamma, nil)
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if err != nil {
		return badInput("--model %s: %v", f.model, err)
	}
	fmt.Fprintf(w, "observation O0 = %s: posterior over the current state\n", m.ObsName(f.obs))
	for s, p := range qs {
		if p >= 0.0005 {
			fmt.Fprintf(w, "  %-12s %.4f\n", m.StateName(s), p)
		}
	}
	fmt.Fprintf(w, "%d policies of length %d, gamma %g; action marginal\n", rk.NumPolicies, f.horizon, f.gamma)
	best := 0
	for u, p := range rk.ActionProbs {
		if p > rk.ActionProbs[best] {
			best = u
		}
	}
	for u, p := range rk.ActionProbs {
		mark := ""
		if u == best {
			mark = "  <- most probable"
		}
		fmt.Fprintf(w, "  %-12s %.4f%s\n", m.ActionName(u), p, mark)
	}
	fmt.Fprintf(w, "lowest expected free energy (G = risk + ambiguity)\n")
	fmt.Fprintf(w, "  %-10s %-10s %-10s %-10s policy\n", "G", "risk", "ambiguity", "q_pi")
	for _, p := range rk.Best {
		names := make([]string, len(p.Policy))
		for i, u := range p.Policy {
			names[i] = m.ActionName(u)
		}
		fmt.Fprintf(w, "  %-10.5g %-10.5g %-10.5g %-10.4g %s\n", p.G, p.Risk, p.Ambiguity, p.QPi, strings.Join(names, " "))
	}
	return nil
}

// aciWriteEvalJSON writes res as one JSON object (docs/cli.md) followed by
// a newline. Numbers are written as encoding/json writes a float64; a
// non-finite value (G = +Inf when C gives probability 0 to an outcome a
// policy predicts) is written as null, which encoding/json cannot do.
//
// For a factorised model q_s is an object keyed by factor name.
func aciWriteEvalJSON(w io.Writer, m *pomdp.Model, res *aci.EvalResult) error {
	b := make([]byte, 0, 64+len(res.G)*(80+8*len(res.Policies[0])))
	b = append(b, `{"q_s":`...)
	qs, err := json.Marshal(output.Belief(m, res.QS))
	if err != nil {
		return err
	}
	b = append(b, qs...)
	b = append(b, `,"policies":[`...)
	for i, p := range res.Policies {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for j, u := range p {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(u), 10)
		}
		b = append(b, ']')
	}
	b = append(b, ']')
	for _, kv := range []struct {
		key string
		x   []float64
	}{
		{"G", res.G}, {"risk", res.Risk}, {"ambiguity", res.Ambiguity},
		{"q_pi", res.QPi}, {"action_probs", res.ActionProbs},
	} {
		b = append(b, `,"`...)
		b = append(b, kv.key...)
		b = append(b, `":`...)
		b = output.AppendFloats(b, kv.x)
	}
	b = append(b, "}\n"...)
	_, err = w.Write(b)
	return err
}

// stringer is a line of human output.
type stringer string

func (s stringer) String() string { return string(s) }
