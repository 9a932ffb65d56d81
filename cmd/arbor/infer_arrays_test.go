package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/model"
	"github.com/google/go-cmp/cmp"
)

// TestInferArrays: data lines that set the length of the arrays of
// examples/models/loops/kalman.json (T = 3 in the file); --json writes
// each array as one list of its elements, null for an observed one, the
// human output a table of a row per element, the middle of a long one
// left out.
func TestInferArrays(t *testing.T) {
	ys := func(n int) string {
		v := make([]string, n)
		for i := range v {
			v[i] = "0.5"
		}
		return "[" + strings.Join(v, ", ") + "]"
	}
	lines := []string{`{"y": ` + ys(13) + `, "x[1]": 0.5}`, `{"y": [1, null, 2]}`, `{"y": ` + ys(12) + `}`, `{}`}
	data := filepath.Join(t.TempDir(), "d.jsonl")
	if err := os.WriteFile(data, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const file = "../../examples/models/loops/kalman.json"
	code, stdout, stderr := inferRun(t, "infer", file, "--data", data, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(got) != len(lines) {
		t.Fatalf("%d lines for %d data sets:\n%s", len(got), len(lines), stdout)
	}
	for i, c := range []struct {
		x, y     int
		observed []int // the observed elements of x
	}{{13, 0, []int{1}}, {3, 3, nil}, {12, 0, nil}, {3, 0, nil}} {
		var o model.InferOutput
		if err := json.Unmarshal([]byte(got[i]), &o); err != nil {
			t.Fatalf("line %d: %v\n%s", i+1, err, got[i])
		}
		x, y := o.Arrays["x"], o.Arrays["y"]
		var observed []int
		for k, p := range x.Elements {
			if p == nil {
				observed = append(observed, k)
			}
		}
		if len(x.Elements) != c.x || len(y.Elements) != c.y || !cmp.Equal(observed, c.observed) || !cmp.Equal(x.Size, []int{c.x}) {
			t.Errorf("line %d (%s): x %d elements, observed %v, y %d; want %d, %v, %d:\n%s", i+1, lines[i], len(x.Elements), observed, len(y.Elements), c.x, c.observed, c.y, got[i])
		}
	}
	if !strings.Contains(got[1], `"y":[null,{"family":"normal","mean":`) || !strings.Contains(got[0], `},null,{`) {
		t.Errorf("observed elements not null:\n%s\n%s", got[0], got[1])
	}

	code, stdout, stderr = inferRun(t, "infer", file, "--data", data)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// The shape of each table: its header line, then the index of each
	// row ("1 observed" for an observed element), "..." for the elision.
	var shape []string
	for _, line := range strings.Split(stdout, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 0 || !strings.HasPrefix(line, "    "):
			status, _, _ := strings.Cut(strings.Join(f[min(1, len(f)):], " "), ", F =")
			shape = append(shape, status)
		case f[0] == "...":
			shape = append(shape, line)
		case f[1] == "observed" || f[0] == "index":
			shape = append(shape, strings.Join(f, " "))
		default:
			shape = append(shape, f[0])
		}
	}
	want := []string{
		"converged after 1 sweeps",
		"normal array of size [13]", "index mean sd", "0", "1 observed", "2", "3", "4", "    ... 3 more", "8", "9", "10", "11", "12",
		"converged after 1 sweeps",
		"normal array of size [3]", "index mean sd", "0", "1", "2",
		"normal array of size [3]", "index mean sd", "0 observed", "1", "2 observed",
		"converged after 1 sweeps",
		"normal array of size [12]", "index mean sd", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11",
		"converged after 1 sweeps",
		"normal array of size [3]", "index mean sd", "0", "1", "2",
		"",
	}
	if d := cmp.Diff(want, shape); d != "" {
		t.Errorf("human output (-want +got):\n%s\n%s", d, stdout)
	}
	if !strings.Contains(stdout, "\n  x            normal       array of size [13]\n    index      mean        sd\n        0  ") {
		t.Errorf("table's header:\n%s", stdout)
	}
}

// TestInferArrayFamilies: the columns of a table by family, and the
// indices of a two-dimensional array.
func TestInferArrayFamilies(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gd.json")
	text := `{"sizes": {"K": 2},
 "variables": [{"name": "g", "family": "gamma", "size": "K"}, {"name": "d", "family": "dirichlet", "shape": [2], "size": ["K", 1]},
               {"name": "s", "family": "categorical", "shape": [3], "size": 1}],
 "factors": [{"node": "gamma", "for": {"k": "0..K-1"}, "out": "g[k]", "shape": 2, "rate": 4},
             {"node": "dirichlet", "for": {"k": "0..K-1"}, "out": "d[k,0]", "alpha": [1, 2]},
             {"node": "categorical", "out": "s[0]", "p": [0.5, 0.25, 0.25]}]}`
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := inferRun(t, "infer", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := `  g            gamma        array of size [2]
    index  shape  rate  mean
        0      2     4   0.5
        1      2     4   0.5
  d            dirichlet    array of size [2 1]
    index  alpha
      0,0  [1 2]
      1,0  [1 2]
  s            categorical  array of size [1]
    index  p[0]  p[1]  p[2]
        0   0.5  0.25  0.25
`
	if _, rest, _ := strings.Cut(stdout, "\n"); rest != want {
		t.Errorf("got\n%s\nwant\n%s", rest, want)
	}
	code, stdout, _ = inferRun(t, "infer", path, "--json")
	if code != 0 || !strings.Contains(stdout, `"d":[[{"family":"dirichlet","alpha":[1,2]}],[{"family":"dirichlet","alpha":[1,2]}]]`) {
		t.Errorf("exit %d:\n%s", code, stdout)
	}
}

// TestInferArrayDocs: the table of docs/cli.md is the output of its
// command (F aside, which the status line prints to 10 digits).
func TestInferArrayDocs(t *testing.T) {
	doc, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	const cmdline = "$ arbor infer examples/models/loops/local-level.json --digits 4\n"
	_, block, ok := strings.Cut(string(doc), "```console\n"+cmdline)
	if !ok {
		t.Fatalf("docs/cli.md has no console block of %q", cmdline)
	}
	block, _, _ = strings.Cut(block, "```")
	t.Chdir("../..")
	code, stdout, stderr := inferRun(t, strings.Fields(cmdline)[2:]...)
	_, want, _ := strings.Cut(block, "\n")
	_, got, _ := strings.Cut(stdout, "\n")
	if code != 0 || got != want || !strings.HasPrefix(stdout, "examples/models/loops/local-level.json: converged after 13 sweeps, F = 38.020267") {
		t.Errorf("exit %d %s, got\n%s\ndocs/cli.md shows\n%s", code, stderr, stdout, block)
	}
}
