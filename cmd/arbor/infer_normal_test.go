package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInferNormal: arbor infer prints a normal posterior as
// {"family": "normal", "mean": m, "variance": v} (exactly those keys) and
// as "normal mean = m, variance = v" in human output; --data lines give
// numbers to normal variables; each bad input exits 2 with one line that
// names the file, the field and the fault; arbor dot labels the nodes
// N(μ, τ⁻¹).
func TestInferNormal(t *testing.T) {
	const file = "../../examples/models/unknown-mean-precision.json"
	code, stdout, stderr := inferRun(t, "infer", file, "--json")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var out struct {
		Posteriors map[string]map[string]json.RawMessage `json:"posteriors"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	mu := out.Posteriors["mu"]
	if got := inferSortedKeys(mu); strings.Join(got, ",") != "family,mean,variance" {
		t.Errorf("mu: keys %v, want family, mean, variance", got)
	}
	if string(mu["family"]) != `"normal"` {
		t.Errorf("mu: family %s", mu["family"])
	}
	code, stdout, _ = inferRun(t, "infer", file)
	if code != 0 || !strings.Contains(stdout, "mu           normal       mean = ") || !strings.Contains(stdout, ", variance = ") {
		t.Errorf("human output (exit %d):\n%s", code, stdout)
	}

	// DOT labels N(μ, τ⁻¹): the mean's and the precision's labels, or the
	// literal variance.
	code, stdout, stderr = inferRun(t, "dot", "../../examples/models/local-level.json")
	for _, want := range []string{`label="N(0, 10)"`, `label="N(x₀, 0.25)"`, `label="N(x₀, r⁻¹)"`} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("arbor dot local-level.json (exit %d, %q): no %s", code, stderr, want)
		}
	}

	dir := t.TempDir()
	data := filepath.Join(dir, "d.jsonl")
	if err := os.WriteFile(data, []byte(`{"y0": 1.25}`+"\n"+`{"y0": [1, 2]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = inferRun(t, "infer", file, "--data", data, "--json")
	if code != 2 || strings.Count(stdout, "\n") != 1 {
		t.Errorf("--data: exit %d, stdout %q, stderr %q; want the first line's result, then exit 2", code, stdout, stderr)
	}
	inferCheckOneLine(t, "--data", stderr, data+":2", `"y0"`, "want a number")

	model, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		old, new, field, fault string
	}{
		{`"precision": 0.01`, `"precision": 0`, "factors[0] (normal).precision", "want a finite number > 0"},
		{`"precision": 0.01`, `"precision": -1`, "factors[0] (normal).precision", "want a finite number > 0"},
		{`"precision": 0.01`, `"precision": 1e999`, "factors[0] (normal).precision", "not a finite number"},
		{`"observed": 0.955`, `"observed": 1e999`, `variables[2] ("y0").observed`, "not a finite number"},
		{`"mean": 0,`, `"mean": "tau",`, "factors[0] (normal).mean", `variable "tau" is gamma, want normal`},
	} {
		bad := strings.Replace(string(model), c.old, c.new, 1)
		if bad == string(model) {
			t.Fatalf("%s not in the file", c.old)
		}
		path := filepath.Join(dir, "bad.json")
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := inferRun(t, "infer", path)
		if code != 2 {
			t.Errorf("%s: exit %d, want 2", c.new, code)
		}
		inferCheckOneLine(t, c.new, stderr, path, c.field, c.fault)
	}
}
