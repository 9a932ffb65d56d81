package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad multivariate model files and data lines: exit 2, one line naming
// the file, the field and the reason, nothing on stdout.
func TestInferMvBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	x2 := `{"name": "x", "family": "mvnormal", "dim": 2}`
	asym := write("asym.json", `{"variables": [`+x2+`], "factors": [{"node": "mvnormal", "out": "x", "mean": [0, 0], "precision": [[1, 0.5], [0.4, 1]]}]}`)
	nu := write("nu.json", `{"variables": [{"name": "W", "family": "wishart", "dim": 2}], "factors": [{"node": "wishart", "out": "W", "df": 1, "scale": [[1, 0], [0, 1]]}]}`)
	track := "../../examples/models/multivariate/tracking.json"
	short := write("short.jsonl", `{"y": [[1, 2], [3]]}`+"\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"infer", asym}, asym + `: factors[0] (mvnormal).precision: not symmetric`},
		{[]string{"infer", nu}, nu + `: factors[0] (wishart).df: 1, want a finite number > d - 1 = 1`},
		{[]string{"infer", "--data", short, track}, short + `:1: "y"[1]: want an array of 2 numbers`},
	} {
		var out, errb bytes.Buffer
		code := run(c.args, &out, &errb)
		if code != 2 || out.Len() != 0 || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%s: exit %d, stdout %.80q, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), code, out.String(), errb.String(), c.want)
		}
	}
}
