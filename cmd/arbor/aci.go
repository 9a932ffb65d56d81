package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/arbor-ai/arbor/aci"
)

func runACI(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return badInput("want a subcommand: eval or run (e.g. arbor aci eval --model M --obs 0 --horizon 2)")
	}
	switch args[0] {
	case "eval":
		return runACIEval(args[1:], stdout)
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, "usage: arbor aci eval|run [flags]; 'arbor aci eval -h' lists the flags")
		return nil
	}
	return badInput("unknown subcommand %q (want eval or run)", args[0])
}

// aciLoadModel reads and validates the --model file. Every fault is bad
// input (exit status 2) and the message starts with "--model PATH:" followed
// by the field and the fault, e.g.
// "--model m.json: B[1]: column 2 sums to 0.93, want 1 (tolerance 1e-6)".
func aciLoadModel(path string) (*aci.POMDP, error) {
	if path == "" {
		return nil, badInput("--model: missing (want a POMDP file, DESIGN.md 5.2)")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		why := err.Error()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			why = pe.Err.Error() // the path is already in the message
		}
		return nil, badInput("--model %s: cannot read: %s", path, why)
	}
	// A syntax error is located here, as a field path, before the loader
	// (which reports only the byte offset) sees the data.
	var v any
	var se *json.SyntaxError
	if err := json.Unmarshal(data, &v); errors.As(err, &se) {
		at := ""
		if p := aciJSONPath(data, se.Offset-1); p != "" {
			at = p + ": "
		}
		hint := ""
		if k := se.Offset - 1; k >= 0 && k < int64(len(data)) && (data[k] == 'N' || data[k] == 'I') {
			hint = " (JSON has no NaN or Infinity)"
		}
		return nil, badInput("--model %s: %sinvalid JSON at byte %d: %v%s", path, at, se.Offset, err, hint)
	}
	m, err := aci.ParsePOMDP(data)
	if err != nil {
		return nil, badInput("--model %s: %v", path, err)
	}
	return m, nil
}

// aciJSONPath returns the path (e.g. "A[0][1]" or "B[1]") of the JSON
// value being read at byte offset end of data, which holds valid JSON up to
// there, or "" at the top level.
func aciJSONPath(data []byte, end int64) string {
	type frame struct {
		obj     bool
		key     string
		n       int // array: values completed so far
		wantKey bool
	}
	var stack []frame
	done := func() { // a value completed in the innermost container
		if len(stack) == 0 {
			return
		}
		f := &stack[len(stack)-1]
		if f.obj {
			f.wantKey = true
		} else {
			f.n++
		}
	}
	if end < 0 || end > int64(len(data)) {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(data[:end]))
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, frame{obj: true, wantKey: true})
			case '[':
				stack = append(stack, frame{})
			default:
				stack = stack[:len(stack)-1]
				done()
			}
		case string:
			if f := len(stack) - 1; f >= 0 && stack[f].obj && stack[f].wantKey {
				stack[f].key, stack[f].wantKey = t, false
				continue
			}
			done()
		default:
			done()
		}
	}
	var b strings.Builder
	for _, f := range stack {
		switch {
		case f.obj && f.wantKey:
			return b.String()
		case f.obj:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(f.key)
		default:
			fmt.Fprintf(&b, "[%d]", f.n)
		}
	}
	return b.String()
}

// aciEvalFlags are the flags of arbor aci eval.
type aciEvalFlags struct {
	model   string
	obs     int
	horizon int
	gamma   float64
	top     int
	asJSON  bool
}

const aciEvalSynopsis = "arbor aci eval --model M --obs O0 --horizon T [--gamma 16] [--top 10] [--json]"

func runACIEval(args []string, stdout io.Writer) error {
	fset := flag.NewFlagSet("aci eval", flag.ContinueOnError)
	var f aciEvalFlags
	fset.StringVar(&f.model, "model", "", "POMDP file (DESIGN.md 5.2)")
	fset.IntVar(&f.obs, "obs", -1, "the first observation O0 (index, required)")
	fset.IntVar(&f.horizon, "horizon", 0, "policy length T (required); |U|^T policies are scored")
	fset.Float64Var(&f.gamma, "gamma", 16, "policy precision: q_pi = softmax(-gamma G)")
	fset.IntVar(&f.top, "top", 10, "human output: list this many lowest-G policies")
	fset.BoolVar(&f.asJSON, "json", false, "print every policy as JSON (DESIGN.md 5.3)")
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
	// on the file.
	if f.horizon < 1 {
		if f.horizon == 0 {
			return badInput("--horizon: missing (want the policy length T >= 1)")
		}
		return badInput("--horizon: %d, want >= 1", f.horizon)
	}
	if math.IsNaN(f.gamma) || math.IsInf(f.gamma, 0) || f.gamma <= 0 {
		return badInput("--gamma: %v, want finite > 0", f.gamma)
	}
	if f.top < 1 {
		return badInput("--top: %d, want >= 1", f.top)
	}
	m, err := aciLoadModel(f.model)
	if err != nil {
		return err
	}
	if f.obs < 0 || f.obs >= m.NumObs() {
		if f.obs == -1 {
			return badInput("--obs: missing (want an observation index in [0, %d), from --model %s)", m.NumObs(), f.model)
		}
		return badInput("--obs: %d out of range [0, %d) (number of observations in --model %s)", f.obs, m.NumObs(), f.model)
	}
	if f.asJSON {
		if _, err := aci.NumPolicies(m.NumActions(), f.horizon, aci.MaxPolicies); err != nil {
			return badInput("--%v (--json lists every policy; the human output streams any number)", err)
		}
		res, err := aci.Eval(m, f.obs, f.horizon, f.gamma)
		if err != nil {
			return badInput("--model %s: %v", f.model, err)
		}
		return aciWriteEvalJSON(stdout, res)
	}
	return aciPrintEval(stdout, m, &f)
}

// aciPrintEval is the human output of arbor aci eval. It streams the policy
// tree with aci.TopPolicies, so any horizon whose |U|^T fits in an int works
// in O(T |S| + top T) memory.
func aciPrintEval(w io.Writer, m *aci.POMDP, f *aciEvalFlags) error {
	if _, err := aci.NumPolicies(m.NumActions(), f.horizon, math.MaxInt); err != nil {
		return badInput("--%v", err)
	}
	qs, err := aci.StatePosterior(nil, m, f.obs)
	if err != nil {
		return badInput("%v (--model %s)", err, f.model)
	}
	rk, err := aci.TopPolicies(m, qs, f.horizon, f.top, f.gamma, nil)
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

// aciWriteEvalJSON writes res as one JSON object (DESIGN.md 5.3) followed by
// a newline. Numbers are written as encoding/json writes a float64; a
// non-finite value (G = +Inf when C gives probability 0 to an outcome a
// policy predicts) is written as null, which encoding/json cannot do.
func aciWriteEvalJSON(w io.Writer, res *aci.EvalResult) error {
	b := make([]byte, 0, 64+len(res.G)*(80+8*len(res.Policies[0])))
	b = append(b, `{"q_s":`...)
	b = aciAppendFloats(b, res.QS)
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
		b = aciAppendFloats(b, kv.x)
	}
	b = append(b, "}\n"...)
	_, err := w.Write(b)
	return err
}

func aciAppendFloats(b []byte, x []float64) []byte {
	b = append(b, '[')
	for i, v := range x {
		if i > 0 {
			b = append(b, ',')
		}
		b = aciAppendFloat(b, v)
	}
	return append(b, ']')
}

// aciAppendFloat appends v formatted as encoding/json formats a float64
// (shortest representation; exponent form below 1e-6 and from 1e21 on,
// with a two-digit minimum exponent: 1e-07 becomes 1e-7), or null when v
// is NaN or infinite.
func aciAppendFloat(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...)
	}
	abs := math.Abs(v)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, v, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
