package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/model"
	"github.com/google/go-cmp/cmp"
)

// loopsHMM is an HMM of 5 steps with loops; loopsHMMTwin writes it out
// (every element a scalar variable "s[0]", every factor written out).
const loopsHMM = `{
  "sizes": {"T": 5},
  "data": {"A": [[0.9, 0.2], [0.1, 0.8]]},
  "variables": [
    {"name": "B", "family": "dirichlet", "shape": [2, 2]},
    {"name": "s", "family": "categorical", "shape": [2], "size": "T"},
    {"name": "o", "family": "categorical", "shape": [2], "size": "T", "observed": [0, 0, null, 1, 1]}
  ],
  "factors": [
    {"node": "dirichlet", "out": "B", "alpha": [[2, 1], [1, 2]]},
    {"node": "categorical", "out": "s[0]", "p": [0.5, 0.5]},
    {"node": "transition", "for": {"t": "1..T-1"}, "out": "s[t]", "in": ["s[t-1]"], "matrix": "B"},
    {"node": "transition", "name": "emit", "for": {"t": "0..T-1"}, "out": "o[t]", "in": ["s[t]"], "matrix": "A"}
  ]
}`

func loopsHMMTwin() string {
	obs := []string{"0", "0", "", "1", "1"}
	vars := []string{`{"name": "B", "family": "dirichlet", "shape": [2, 2]}`}
	for t := range 5 {
		vars = append(vars, fmt.Sprintf(`{"name": "s[%d]", "family": "categorical", "shape": [2]}`, t))
	}
	for t := range 5 {
		o := ""
		if obs[t] != "" {
			o = `, "observed": ` + obs[t]
		}
		vars = append(vars, fmt.Sprintf(`{"name": "o[%d]", "family": "categorical", "shape": [2]%s}`, t, o))
	}
	factors := []string{`{"node": "dirichlet", "out": "B", "alpha": [[2, 1], [1, 2]]}`, `{"node": "categorical", "out": "s[0]", "p": [0.5, 0.5]}`}
	for t := 1; t < 5; t++ {
		factors = append(factors, fmt.Sprintf(`{"node": "transition", "out": "s[%d]", "in": ["s[%d]"], "matrix": "B"}`, t, t-1))
	}
	for t := range 5 {
		factors = append(factors, fmt.Sprintf(`{"node": "transition", "name": "emit[%d]", "out": "o[%d]", "in": ["s[%d]"], "matrix": [[0.9, 0.2], [0.1, 0.8]]}`, t, t, t))
	}
	return fmt.Sprintf(`{"variables": [%s], "factors": [%s]}`, strings.Join(vars, ", "), strings.Join(factors, ", "))
}

// TestLoopsFileSameAsTwin: arbor dot draws a file with loops and its
// written-out twin as the same figure (--unroll all, and the default
// plates), and arbor infer gives the same results: the twin's variables
// s[0], s[1], ... are the elements of the array s, nested in --json (null
// for an observed element) and a table in the human output.
func TestLoopsFileSameAsTwin(t *testing.T) {
	dir := t.TempDir()
	loops, twin := filepath.Join(dir, "hmm.json"), filepath.Join(dir, "twin", "hmm.json")
	if err := os.MkdirAll(filepath.Dir(twin), 0o755); err != nil {
		t.Fatal(err)
	}
	for path, text := range map[string]string{loops: loopsHMM, twin: loopsHMMTwin()} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"dot", "--unroll", "all"}, {"dot"}, {"dot", "--unroll", "all", "--edge-labels"}, {"infer", "--json"}, {"infer"}} {
		code, a, stderr := inferRun(t, append(args, loops)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		code, b, stderr := inferRun(t, append(args, twin)...)
		if code != 0 {
			t.Fatalf("%v twin: exit %d: %s", args, code, stderr)
		}
		switch {
		case args[0] == "dot":
			if a != b {
				t.Errorf("arbor %v: the file with loops and its twin differ:\n%s\n---\n%s", args, a, b)
			}
			for _, want := range []string{"s[4]", "o[2]"} {
				if !strings.Contains(a, want) {
					t.Errorf("arbor %v: no %s in\n%s", args, want, a)
				}
			}
		case len(args) == 2: // --json
			var oa, ob model.InferOutput
			if err := json.Unmarshal([]byte(a), &oa); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(b), &ob); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(ob.Posteriors, oa.Posteriors); d != "" || oa.Iterations != ob.Iterations || !cmp.Equal(oa.FreeEnergy, ob.FreeEnergy) {
				t.Errorf("arbor infer --json: the file with loops and its twin differ (-twin +loops):\n%s\n%s\n---\n%s", d, a, b)
			}
			if !strings.Contains(a, `"o":[null,null,{"family":"categorical","p":[`) || !strings.Contains(a, `"s":[{"family":"categorical"`) || strings.Contains(a, "s[") {
				t.Errorf("arbor infer --json: want s and o as arrays of posteriors, null for o's observed elements:\n%s", a)
			}
		default:
			// The human output starts with the file's name.
			a, b = strings.ReplaceAll(a, loops, "FILE"), strings.ReplaceAll(b, twin, "FILE")
			na, nb := humanNumbers(a), humanNumbers(b)
			if !cmp.Equal(na, nb) || len(na) != 7 || strings.Split(a, "\n")[0] != strings.Split(b, "\n")[0] {
				t.Errorf("arbor infer: the file with loops and its twin differ:\n%s\n---\n%s", a, b)
			}
			if !strings.Contains(a, "  s            categorical  array of size [5]\n    index       p[0]       p[1]\n") ||
				!strings.Contains(a, "\n        1  observed\n") {
				t.Errorf("arbor infer: want s and o as tables, o's observed elements marked:\n%s", a)
			}
		}
	}
}

// humanNumbers reads the human output of arbor infer: each hidden
// variable's numbers, a table's rows as the elements x[i].
func humanNumbers(text string) map[string]string {
	out := map[string]string{}
	array := ""
	nums := func(fields []string) string {
		var keep []string
		for _, f := range fields {
			if _, err := strconv.ParseFloat(f, 64); err == nil {
				keep = append(keep, f)
			}
		}
		return strings.Join(keep, " ")
	}
	for _, line := range strings.Split(text, "\n")[1:] {
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
		case !strings.HasPrefix(line, "    "): // a variable
			array = ""
			if strings.Contains(line, "array of size") {
				array = fields[0]
				continue
			}
			out[fields[0]] = nums(strings.Fields(strings.NewReplacer("[", " ", "]", " ", ",", " ").Replace(line[len("  "+fields[0]):])))
		case array != "" && fields[0] != "index" && fields[1] != "observed": // a row of a table
			out[array+"["+fields[0]+"]"] = nums(fields[1:])
		}
	}
	return out
}

// TestLoopsBadInput: a fault of sizes, arrays or loops is bad input (exit
// 2) in one line naming the file and the field.
func TestLoopsBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ text, want string }{
		{strings.Replace(loopsHMM, `"in": ["s[t-1]"]`, `"in": ["s[t-2]"]`, 1), `factors[2] (transition).in[0]: s[t-2] with t = 1: index -1 out of [0, 5)`},
		{strings.Replace(loopsHMM, `"T": 5`, `"T": -5`, 1), `sizes.T: want a whole number >= 0, got -5`},
		{strings.Replace(loopsHMM, `[0, 0, null, 1, 1]`, `[0, 0, 1, 1]`, 1), `variables[2] ("o").observed: 4 entries, want 5 (size T)`},
		{strings.Replace(loopsHMM, `"1..T-1"`, `"1..N-1"`, 1), `factors[2].for.t: "1..N-1": unknown name "N"`},
		{strings.Replace(loopsHMM, `"T": 5`, `"T": 50000000`, 1), `variables[1] ("s").size: the model would have 200,000,002 variables and factors`},
	} {
		path := filepath.Join(dir, "bad.json")
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, cmd := range []string{"infer", "dot"} {
			code, stdout, stderr := inferRun(t, cmd, path)
			if code != 2 || stdout != "" || !strings.Contains(stderr, path+": ") || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("arbor %s: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", cmd, code, stdout, stderr, c.want)
			}
		}
	}
}

// TestLoopsDataArrays: a data line names an array whole, null hiding an
// element, and its length sets the array's size for that data set; each
// result is that of the file rewritten with those values.
func TestLoopsDataArrays(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "hmm.json")
	if err := os.WriteFile(file, []byte(loopsHMM), 0o644); err != nil {
		t.Fatal(err)
	}
	lines := []string{`{"o": [1, null, 0]}`, `{"o[1]": 1}`, `{"o": [0, 1, 1, 0, 1, 1, 0]}`}
	data := filepath.Join(dir, "d.jsonl")
	if err := os.WriteFile(data, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := inferRun(t, "infer", file, "--data", data, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := strings.Split(strings.TrimSpace(stdout), "\n")
	for i, c := range []struct {
		T   int
		obs string
	}{{3, "[1, null, 0]"}, {5, "[0, 1, null, 1, 1]"}, {7, "[0, 1, 1, 0, 1, 1, 0]"}} {
		text := strings.Replace(strings.Replace(loopsHMM, `"T": 5`, fmt.Sprintf(`"T": %d`, c.T), 1), "[0, 0, null, 1, 1]", c.obs, 1)
		path := filepath.Join(dir, fmt.Sprintf("want%d.json", i))
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		code, want, stderr := inferRun(t, "infer", path, "--json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if i >= len(got) || got[i] != strings.TrimSpace(want) {
			t.Errorf("line %d (%s): got\n%s\nwant\n%s", i+1, lines[i], got[min(i, len(got)-1)], want)
		}
	}
	// Two arrays that set one size differently.
	if err := os.WriteFile(data, []byte(`{"o": [1, 0], "s": [0, 1, 1]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = inferRun(t, "infer", file, "--data", data)
	if code != 2 || !strings.Contains(stderr, `d.jsonl:1: "s": 3 entries set the size T to 3, and "o" sets it to 2`) {
		t.Errorf("exit %d: %s", code, stderr)
	}
}
