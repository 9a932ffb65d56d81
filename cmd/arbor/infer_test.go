package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"gonum.org/v1/gonum/mathext"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/messages"
	"github.com/arbor-ai/arbor/model"
)

// inferRun runs the arbor command line in-process and returns its exit
// status, stdout and stderr.
func inferRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// inferJSON runs `arbor infer --json path` and decodes its output strictly
// against the schema of docs/formats.md: exactly the keys
// iterations, converged, free_energy, posteriors, and per posterior exactly
// the keys of its family.
func inferJSON(t *testing.T, path string) inferOutput {
	t.Helper()
	code, stdout, stderr := inferRun(t, "infer", path, "--json")
	if code != 0 || stderr != "" {
		t.Fatalf("arbor infer %s: exit %d, stderr %q", path, code, stderr)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(stdout), &raw); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout)
	}
	if got, want := inferSortedKeys(raw), []string{"converged", "free_energy", "iterations", "posteriors"}; !cmp.Equal(got, want) {
		t.Errorf("top-level keys %v, want %v", got, want)
	}
	var posts map[string]map[string]json.RawMessage
	if err := json.Unmarshal(raw["posteriors"], &posts); err != nil {
		t.Fatalf("posteriors: %v", err)
	}
	for name, p := range posts {
		var fam string
		if err := json.Unmarshal(p["family"], &fam); err != nil {
			t.Fatalf("posteriors.%s.family: %v", name, err)
		}
		want := map[string][]string{
			"categorical": {"family", "p"},
			"dirichlet":   {"alpha", "family"},
			"gamma":       {"family", "rate", "shape"},
		}[fam]
		if got := inferSortedKeys(p); !cmp.Equal(got, want) {
			t.Errorf("posteriors.%s (%s): keys %v, want %v", name, fam, got, want)
		}
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	var out inferOutput
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("decoding %s: %v", stdout, err)
	}
	if out.Iterations != len(out.FreeEnergy) || out.Iterations < 1 {
		t.Errorf("iterations %d, %d free_energy entries: want equal and >= 1", out.Iterations, len(out.FreeEnergy))
	}
	return out
}

type inferOutput struct {
	Iterations int                       `json:"iterations"`
	Converged  bool                      `json:"converged"`
	FreeEnergy []float64                 `json:"free_energy"`
	Posteriors map[string]inferPosterior `json:"posteriors"`
}

type inferPosterior struct {
	Family string          `json:"family"`
	P      []float64       `json:"p"`
	Alpha  json.RawMessage `json:"alpha"`
	Shape  float64         `json:"shape"`
	Rate   float64         `json:"rate"`
}

func inferSortedKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// TestInferBayesExact: with a single hidden variable, mean-field VMP is
// exact, so the posterior is Bayes' rule and F is -ln P(o).
func TestInferBayesExact(t *testing.T) {
	out := inferJSON(t, "testdata/models/bayes.json")
	// P(s) = (0.2, 0.5, 0.3), P(o=1 | s) = (0.3, 0.8, 0.9):
	// P(s, o=1) = (0.06, 0.40, 0.27), P(o=1) = 0.73.
	want := []float64{0.06 / 0.73, 0.40 / 0.73, 0.27 / 0.73}
	if !out.Converged {
		t.Error("not converged")
	}
	if got := out.Posteriors["s"]; got.Family != "categorical" || !cmp.Equal(got.P, want, cmpopts.EquateApprox(0, 1e-12)) {
		t.Errorf("q(s) = %+v, want p = %v", got, want)
	}
	if _, ok := out.Posteriors["o"]; ok {
		t.Error("observed variable o listed among the posteriors")
	}
	if got, want := out.FreeEnergy[len(out.FreeEnergy)-1], -math.Log(0.73); math.Abs(got-want) > 1e-12 {
		t.Errorf("final F = %.15g, want -ln 0.73 = %.15g", got, want)
	}
	// The human output names the file and prints the same posterior, to 6
	// significant digits: 0.06/0.73, 0.40/0.73, 0.27/0.73.
	code, stdout, stderr := inferRun(t, "infer", "testdata/models/bayes.json")
	if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "testdata/models/bayes.json: converged") ||
		!strings.Contains(stdout, "p = [0.0821918 0.547945 0.369863]") {
		t.Errorf("human output: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
}

// coreDirichletKL is KL(Dir(a) || Dir(b)) written out from its textbook
// closed form with gonum's digamma, independently of package expfam.
func coreDirichletKL(a, b []float64) float64 {
	sa, sb := 0.0, 0.0
	for i := range a {
		sa += a[i]
		sb += b[i]
	}
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	kl := lg(sa) - lg(sb)
	for i := range a {
		kl += lg(b[i]) - lg(a[i]) + (a[i]-b[i])*(mathext.Digamma(a[i])-mathext.Digamma(sa))
	}
	return kl
}

// TestInferDesignExample runs the model file of docs/formats.md and
// checks every posterior and F against a hand derivation.
func TestInferDesignExample(t *testing.T) {
	out := inferJSON(t, "../../examples/models/design.json")
	// By symmetry (uniform priors, every s alike), q(s) = 1/3 each, and the
	// Dirichlet updates of Appendix C add the expected counts:
	// theta = 1 + q(s) = 4/3; A[o=1, s] = 1 + q(s) = 4/3, A[o=0, s] = 1.
	// The gamma variable has no other factor: its posterior is its prior.
	third, fourThirds := 1.0/3, 4.0/3
	approx := cmpopts.EquateApprox(0, 1e-12)
	if got := out.Posteriors["s"].P; !cmp.Equal(got, []float64{third, third, third}, approx) {
		t.Errorf("q(s) = %v", got)
	}
	var theta []float64
	var a [][]float64
	if err := json.Unmarshal(out.Posteriors["theta"].Alpha, &theta); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out.Posteriors["A"].Alpha, &a); err != nil {
		t.Fatalf("A alpha is not a 2-d nested array: %v", err)
	}
	if !cmp.Equal(theta, []float64{fourThirds, fourThirds, fourThirds}, approx) {
		t.Errorf("theta alpha = %v", theta)
	}
	if want := [][]float64{{1, 1, 1}, {fourThirds, fourThirds, fourThirds}}; !cmp.Equal(a, want, approx) {
		t.Errorf("A alpha = %v, want %v", a, want)
	}
	if g := out.Posteriors["g"]; g.Family != "gamma" || g.Shape != 1 || g.Rate != 2 {
		t.Errorf("q(g) = %+v, want shape 1, rate 2", g)
	}
	// F = KL[q(theta) || p(theta)] + sum_s KL[q(A_.s) || p(A_.s)] + KL[q(g) || p(g)]
	//   + sum_s q(s) (ln q(s) - E ln theta_s - E ln A[1, s]),
	// with E ln theta_s = ψ(4/3) - ψ(4), E ln A[1, s] = ψ(4/3) - ψ(7/3)
	// (paper Appendix D) and KL[q(g) || p(g)] = 0.
	ones := []float64{1, 1, 1}
	f := coreDirichletKL(theta, ones) + 3*coreDirichletKL([]float64{1, fourThirds}, []float64{1, 1})
	f += math.Log(third) - (mathext.Digamma(fourThirds) - mathext.Digamma(4)) - (mathext.Digamma(fourThirds) - mathext.Digamma(7.0/3))
	if got := out.FreeEnergy[len(out.FreeEnergy)-1]; math.Abs(got-f) > 1e-9 {
		t.Errorf("final F = %.15g, hand derivation %.15g", got, f)
	}
}

// TestInferFreeEnergyTrace: F after each sweep never increases (coordinate
// ascent), and the last entry is the converged F.
func TestInferFreeEnergyTrace(t *testing.T) {
	out := inferJSON(t, "../../examples/models/hmm.json")
	if !out.Converged {
		t.Errorf("hmm.json did not converge in %d sweeps", out.Iterations)
	}
	for i := 1; i < len(out.FreeEnergy); i++ {
		if out.FreeEnergy[i] > out.FreeEnergy[i-1]+1e-12 {
			t.Errorf("F rose at sweep %d: %v -> %v", i+1, out.FreeEnergy[i-1], out.FreeEnergy[i])
		}
	}
	if n := len(out.Posteriors); n != 9 { // B and s0..s7; o0..o7 are observed
		t.Errorf("%d posteriors, want 9", n)
	}
}

func TestInferFlagsBeforeFile(t *testing.T) {
	_, after, _ := inferRun(t, "infer", "testdata/models/bayes.json", "--json")
	code, before, stderr := inferRun(t, "infer", "--json", "testdata/models/bayes.json")
	if code != 0 || stderr != "" || before != after {
		t.Errorf("--json before the file: exit %d, stderr %q, stdout %q; after: %q", code, stderr, before, after)
	}
}

// TestBadModelFiles: every fault gives exit status 2, nothing on stdout and
// exactly one line on stderr naming the file, the field and the fault, for
// both commands that read model files.
func TestBadModelFiles(t *testing.T) {
	cases := []struct {
		file, field, fault string
	}{
		{"bad-missing-variable.json", "factors[0] (transition).in[0]", `unknown variable "x"`},
		{"bad-duplicate-name.json", `variables[1] ("s").name`, `duplicate variable name "s"`},
		{"bad-unknown-node.json", "factors[0].node", `unknown node "gaussian"`},
		{"bad-unknown-family.json", `variables[0] ("x").family`, `unknown family "poisson"`},
		{"bad-unknown-field.json", "variables[0].obseved", "unknown field"},
		{"bad-shape-matrix.json", "factors[1] (transition).matrix", "shape [2 2], want [3 2]"},
		{"bad-shape-alpha.json", "factors[0] (dirichlet).alpha", "shape [3 2], want the shape [2 3]"},
		{"bad-shape-categorical.json", `variables[0] ("s").shape`, "want [K]"},
		{"bad-gamma-shape.json", `variables[0] ("g").shape`, "gamma variables are scalar"},
		{"bad-ragged.json", "factors[1] (transition).matrix[1]", "ragged array"},
		{"bad-type.json", "variables[0].shape", "want an array, got JSON string"},
		{"bad-wrong-family.json", "factors[0] (transition).matrix", `variable "s" is categorical, want dirichlet`},
		{"bad-inf.json", "factors[0] (categorical).p[0]", "1e999 is not a finite number"},
		{"bad-inf-rate.json", "factors[0] (gamma).rate", "1e999 is not a finite number"},
		{"bad-nan-string.json", "factors[0] (dirichlet).alpha[0]", "got a string"},
		// JSON has no NaN: a bare NaN token is a syntax error at its position.
		{"bad-nan-literal.json", "", "malformed JSON at line 2, column 57: invalid character 'N'"},
		{"bad-negative-alpha.json", "factors[0] (dirichlet).alpha", "concentration -0.5, want > 0"},
		{"bad-negative-gamma.json", "factors[0] (gamma).shape", "-1, want > 0"},
		{"bad-column-sum.json", "factors[1] (transition).matrix", "column [0] sums to 1.1, want 1"},
		{"bad-p-sum.json", "factors[0] (categorical).p", "sum to 0.9, want 1"},
		{"bad-soft-evidence.json", `variables[0] ("o").observed`, "sum to 1.2, want 1"},
		{"bad-observed-range.json", `variables[1] ("o").observed`, "index 3 out of range [0, 3)"},
		{"bad-observed-negative.json", `variables[0] ("o").observed`, "index -1 out of range [0, 3)"},
		{"bad-observed-fraction.json", `variables[0] ("o").observed`, "index 1.5 out of range"},
		{"bad-settings.json", "settings.tolerance", "-1e-09, want a finite number > 0"},
		{"bad-malformed.json", "", "malformed JSON at line 2, column 3"},
		{"bad-truncated.json", "", "malformed JSON: unexpected end of file"},
		// model.MaxConcentration = 1e10 bounds Dirichlet column sums and gamma
		// shapes, model.MaxGammaMean = 1e10 the gamma prior mean shape/rate.
		// 3 × 1e308 overflows to +Inf; 6e9 + 4.5e9 = 1.05e10; 2/1e-300 = 2e300.
		{"bad-alpha-overflow.json", "factors[0] (dirichlet).alpha", "concentrations sum to +Inf, want at most 1e+10"},
		{"bad-alpha-column.json", "factors[1] (dirichlet).alpha", "column [1] sums to 1.05e+10, want at most 1e+10"},
		{"bad-gamma-overflow.json", "factors[0] (gamma).shape", "1e+308, want at most 1e+10"},
		{"bad-gamma-mean.json", "factors[0] (gamma).rate", "1e-300 gives the prior mean shape/rate = 2e+300, want at most 1e+10"},
	}
	for _, tc := range cases {
		path := filepath.Join("testdata", "models", tc.file)
		for _, cmd := range []string{"infer", "dot"} {
			code, stdout, stderr := inferRun(t, cmd, path)
			if code != 2 {
				t.Errorf("%s %s: exit %d, want 2 (stderr %q)", cmd, tc.file, code, stderr)
			}
			if stdout != "" {
				t.Errorf("%s %s: stdout %q, want nothing", cmd, tc.file, stdout)
			}
			inferCheckOneLine(t, cmd+" "+tc.file, stderr, path, tc.field, tc.fault)
		}
	}
}

// inferCheckOneLine asserts that stderr is exactly one line that names the
// file, the field and the fault, in that order.
func inferCheckOneLine(t *testing.T, what, stderr, file, field, fault string) {
	t.Helper()
	if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
		t.Errorf("%s: stderr is not exactly one line: %q", what, stderr)
		return
	}
	i := strings.Index(stderr, file+": ")
	j := strings.Index(stderr, field)
	k := strings.LastIndex(stderr, fault)
	if i < 0 || j < 0 || k < 0 || !(i < j || field == "") || !(j <= k) {
		t.Errorf("%s: stderr %q does not name file %q, field %q and fault %q in that order", what, stderr, file, field, fault)
	}
}

// TestInferContradiction: evidence the model gives probability zero makes
// the update of s invalid; that is bad input naming the variable.
func TestInferContradiction(t *testing.T) {
	path := "testdata/models/bad-contradiction.json"
	code, stdout, stderr := inferRun(t, "infer", path)
	if code != 2 || stdout != "" {
		t.Errorf("exit %d, stdout %q", code, stdout)
	}
	inferCheckOneLine(t, "contradiction", stderr, path, `variables[0] ("s")`, "invalid posterior")
}

func TestInferUsageErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.json")
	cases := []struct {
		args        []string
		field, want string
	}{
		{[]string{"infer", missing}, missing, "no such file"},
		{[]string{"infer"}, "", "want one MODEL file, got 0"},
		{[]string{"dot", "a.json", "b.json"}, "", "want one MODEL file, got 2"},
		{[]string{"infer", "--bogus", "testdata/models/bayes.json"}, "", "flag provided but not defined"},
		{[]string{"frobnicate"}, "", `unknown command "frobnicate"`},
	}
	for _, tc := range cases {
		code, stdout, stderr := inferRun(t, tc.args...)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.field) || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and one line with %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
	code, stdout, _ := inferRun(t, "infer", "-h")
	if code != 0 || !strings.Contains(stdout, "usage: arbor infer") {
		t.Errorf("infer -h: exit %d, stdout %q", code, stdout)
	}
}

// TestDot checks the DOT export of examples/models/design.json: deterministic,
// variables as circles (observed filled gray), factors as boxes labelled
// with their kind, edges labelled with interface names, the --json form
// wrapping the same text, and (when Graphviz is installed) a clean render.
func TestDot(t *testing.T) {
	path := "../../examples/models/design.json"
	code, first, stderr := inferRun(t, "dot", path)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	_, second, _ := inferRun(t, "dot", path)
	if first != second {
		t.Error("two runs gave different DOT")
	}
	for _, want := range []string{
		`label="θ",shape="circle"`,
		`label="o",shape="circle",style="filled"`,
		`label="Cat(A)",shape="box"`,
		`label="Cat(θ)",shape="box"`,
	} {
		if !strings.Contains(first, want) {
			t.Errorf("DOT lacks %s:\n%s", want, first)
		}
	}
	if strings.Contains(first, "taillabel") || strings.Contains(first, "headlabel") {
		t.Errorf("edge labels without --edge-labels:\n%s", first)
	}
	_, labelled, _ := inferRun(t, "dot", path, "--edge-labels")
	for _, want := range []string{`headlabel="matrix"`, `headlabel="p"`, `taillabel="out"`} {
		if !strings.Contains(labelled, want) {
			t.Errorf("--edge-labels: DOT lacks %s:\n%s", want, labelled)
		}
	}
	// design.json declares 5 factors and 5 variables.
	if n := strings.Count(first, `shape="box"`); n != 5 {
		t.Errorf("%d factor boxes, want 5", n)
	}
	if n := strings.Count(first, `shape="circle"`); n != 5 {
		t.Errorf("%d variable circles, want 5", n)
	}
	code, js, _ := inferRun(t, "dot", "--json", path)
	var wrapped map[string]string
	if err := json.Unmarshal([]byte(js), &wrapped); code != 0 || err != nil || wrapped["dot"] != first || len(wrapped) != 1 {
		t.Errorf("dot --json: exit %d, err %v, got %q", code, err, js)
	}
	dotBin, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("Graphviz dot not installed; .ci/run installs it")
	}
	cmd := exec.Command(dotBin, "-Tsvg")
	cmd.Stdin = strings.NewReader(first)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	svg, err := cmd.Output()
	if err != nil || errb.Len() != 0 || !bytes.Contains(svg, []byte("<svg")) {
		t.Errorf("dot -Tsvg: %v, stderr %q", err, errb.String())
	}
}

// TestExampleModelsLoad keeps every file under examples/models valid.
func TestExampleModelsLoad(t *testing.T) {
	files, err := filepath.Glob("../../examples/models/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example models: %v", err)
	}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := inferRun(t, "infer", f); code != 0 {
			t.Errorf("%s: exit %d: %s", f, code, stderr)
		}
	}
}

// TestReadmeErrorExample runs the error example of README.md's "The command
// line" section from the repository root and compares stderr and the exit
// status with what the README shows, so the README cannot drift from the
// real message.
func TestReadmeErrorExample(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## The command line\n")
	if !ok {
		t.Fatal(`README.md has no "## The command line" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, block, ok := strings.Cut(section, "```console\n")
	if !ok {
		t.Fatal("no ```console block in the command-line section")
	}
	block, _, _ = strings.Cut(block, "```")
	lines := strings.Split(strings.TrimSuffix(block, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("console block has %d lines, want command, stderr line, exit status:\n%s", len(lines), block)
	}
	cmdline, ok := strings.CutPrefix(lines[0], "$ arbor ")
	cmdline, ok2 := strings.CutSuffix(cmdline, `; echo "exit $?"`)
	if !ok || !ok2 {
		t.Fatalf(`first line %q, want "$ arbor ARGS; echo "exit $?""`, lines[0])
	}
	wantCode, err := strconv.Atoi(strings.TrimPrefix(lines[2], "exit "))
	if err != nil {
		t.Fatalf("last line %q: %v", lines[2], err)
	}
	t.Chdir("../..")
	code, stdout, stderr := inferRun(t, strings.Fields(cmdline)...)
	if code != wantCode || stdout != "" || stderr != lines[1]+"\n" {
		t.Errorf("arbor %s: exit %d, stdout %q, stderr\n%q\nREADME shows exit %d, stderr\n%q", cmdline, code, stdout, stderr, wantCode, lines[1]+"\n")
	}
}

// TestInferImpossibleEvidence: evidence of probability 0 under a factor whose
// variables are all observed leaves every hidden posterior valid but makes
// F = E_q[-ln f] - ... = -ln 0 = +Inf. That is bad input, in both output
// modes: exit 2, nothing on stdout, one line naming the file, the observed
// field and the fault. (Before, --json exited 1 with "json: unsupported
// value: +Inf" and the human output exited 0 with "F = +Inf".)
func TestInferImpossibleEvidence(t *testing.T) {
	cases := []struct{ file, field, factor string }{
		// o = 0 under p = [0, 0, 1].
		{"bad-impossible-evidence.json", `variables[3] ("o").observed`, "factors[3] (categorical)"},
		// Soft evidence [0.5, 0, 0.5] under p = [0, 0.5, 0.5]: -0.5 ln 0 = +Inf.
		{"bad-impossible-soft.json", `variables[0] ("o").observed`, "factors[1] (categorical)"},
		// Observed s = 0, o = 1 under the identity matrix: P(o=1 | s=0) = 0.
		{"bad-impossible-transition.json", `variables[1] ("o").observed`, "factors[2] (transition)"},
	}
	for _, tc := range cases {
		path := filepath.Join("testdata", "models", tc.file)
		for _, args := range [][]string{{"infer", path}, {"infer", "--json", path}} {
			code, stdout, stderr := inferRun(t, args...)
			if code != 2 || stdout != "" {
				t.Errorf("%v: exit %d, stdout %q; want 2 and nothing", args, code, stdout)
			}
			want := "arbor infer: " + path + ": " + tc.field + ": evidence has probability 0 under the model (" + tc.factor + " gives it probability 0)\n"
			if stderr != want {
				t.Errorf("%v: stderr\n%q, want\n%q", args, stderr, want)
			}
		}
	}
}

// TestInferBoundsAccepted: concentrations and a gamma prior exactly at the
// load-time bounds (a Dirichlet column summing to 6e9 + 4e9 = 1e10 =
// model.MaxConcentration, a gamma of shape 1e10 and mean 1e10/1 =
// model.MaxGammaMean) are accepted and give a finite F.
func TestInferBoundsAccepted(t *testing.T) {
	out := inferJSON(t, "testdata/models/bounds-ok.json")
	for i, f := range out.FreeEnergy {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			t.Errorf("F after sweep %d is %v", i+1, f)
		}
	}
	// g has only its prior: its posterior is the prior.
	if g := out.Posteriors["g"]; g.Shape != 1e10 || g.Rate != 1 {
		t.Errorf("q(g) = %+v, want the prior Gamma(1e10, 1)", g)
	}
}

// inferFixedMessage is a test-only factor on one categorical variable whose
// average energy is always 0 but which sends the fixed message msg, not the
// gradient (0) of that energy: a deliberately wrong VMP rule whose update
// raises F. Model files cannot express such a factor, so the test adds it
// to a loaded model and runs the CLI's own inferModel on it.
type inferFixedMessage struct{ msg []float64 }

func (f *inferFixedMessage) Kind() string { return "fixed" }
func (f *inferFixedMessage) Interfaces() []messages.Interface {
	return []messages.Interface{{Name: "out", Family: expfam.CategoricalFamily, Shape: []int{len(f.msg)}}}
}
func (f *inferFixedMessage) AverageEnergy([][]float64) float64 { return 0 }
func (f *inferFixedMessage) Message(dst []float64, _ int, _ [][]float64) error {
	copy(dst, f.msg)
	return nil
}

// TestInferIncreaseWarning: the human output of arbor infer prints a warning
// line for every sweep that raised F, with the sweep and both values.
func TestInferIncreaseWarning(t *testing.T) {
	path := "testdata/models/increase.json"
	m, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := m.Graph.Variable("s")
	if _, err := m.Graph.AddFactor("", &inferFixedMessage{[]float64{math.Log(9), 0}}, s); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	if err := inferModel(m, false, 6, &stdout); err != nil {
		t.Fatal(err)
	}
	// s ~ Cat(0.5, 0.5) and the fixed message [ln 9, 0] give q(s) = (0.9, 0.1)
	// from sweep 1 on. F = ln 2 - H[q]: 0 for the uniform q before sweep 1,
	// ln 2 + 0.9 ln 0.9 + 0.1 ln 0.1 = 0.6931471806 - 0.3250829734 = 0.3680642072 after it; sweep 2 changes
	// nothing, so the run converges after 2 sweeps.
	to := math.Log(2) + 0.9*math.Log(0.9) + 0.1*math.Log(0.1)
	want := fmt.Sprintf("%s: converged after 2 sweeps, F = %.10g\n", path, to) +
		fmt.Sprintf("warning: F increased at sweep 1 from 0 to %.10g\n", to) +
		"  s            categorical  p = [0.9 0.1]\n"
	if got := stdout.String(); got != want {
		t.Errorf("stdout\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(want, "to 0.3680642072\n") {
		t.Errorf("closed form %.10g, want 0.3680642072", to)
	}
}

// TestInferDigits: --digits sets one precision for every number of the
// human output, Dirichlet concentrations and categorical probabilities
// alike (the HMM's B posterior and s0), and is checked. The 3-digit values
// are the 6-digit ones of the same run rounded by hand: 4.98497 -> 4.98,
// 0.983835 -> 0.984, 0.0101905 -> 0.0102.
func TestInferDigits(t *testing.T) {
	file := filepath.Join("..", "..", "examples", "models", "hmm.json")
	var six, three, errb bytes.Buffer
	if code := run([]string{"infer", file}, &six, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if code := run([]string{"infer", file, "--digits", "3"}, &three, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"alpha = [[4.98497 ", "p = [0.983835 0.0101905 "} {
		if !strings.Contains(six.String(), want) {
			t.Errorf("default output lacks %q:\n%s", want, six.String())
		}
	}
	for _, want := range []string{"alpha = [[4.98 ", "p = [0.984 0.0102 "} {
		if !strings.Contains(three.String(), want) {
			t.Errorf("--digits 3 output lacks %q:\n%s", want, three.String())
		}
	}
	for _, bad := range []string{"0", "18", "x"} {
		var out, errs bytes.Buffer
		if code := run([]string{"infer", file, "--digits", bad}, &out, &errs); code != 2 || !strings.Contains(errs.String(), "digits") {
			t.Errorf("--digits %s: exit %d, stderr %q, want 2 naming --digits", bad, code, errs.String())
		}
	}
}

// TestSharedPrecisionInfer: three trials sharing one policy precision
// (examples/models/precision.json) converge with a valid Gamma posterior
// and a free energy that never rises; with SPM's linearised rule
// ("update": "spm") the summed rate updates turn the rate negative and
// inference stops with an error naming the variable.
func TestSharedPrecisionInfer(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"infer", "../../examples/models/precision.json", "--json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var res struct {
		Converged  bool      `json:"converged"`
		FreeEnergy []float64 `json:"free_energy"`
		Posteriors map[string]struct {
			Shape float64 `json:"shape"`
			Rate  float64 `json:"rate"`
		} `json:"posteriors"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	g := res.Posteriors["gamma"]
	if !res.Converged || !(g.Shape > 0) || !(g.Rate > 0) {
		t.Errorf("converged %v, gamma %+v", res.Converged, g)
	}
	for i := 1; i < len(res.FreeEnergy); i++ {
		if res.FreeEnergy[i] > res.FreeEnergy[i-1]+1e-9 {
			t.Errorf("F rose at sweep %d: %v -> %v", i, res.FreeEnergy[i-1], res.FreeEnergy[i])
		}
	}
	out.Reset()
	errb.Reset()
	code := run([]string{"infer", "testdata/models/precision-spm.json"}, &out, &errb)
	if code == 0 || !strings.Contains(errb.String(), `"gamma"`) || !strings.Contains(errb.String(), "rate is -") {
		t.Errorf("spm rule: exit %d, stderr %q: want the negative rate reported", code, errb.String())
	}
}

// TestInferSumProduct: "settings": {"method": "sum-product"} runs the
// HMM with the states' exact joint (structured mean field), whose free
// energy bounds -ln p(observations) more tightly than fully factorised VMP
// (a lower F); an unknown method and a loop among the discrete variables
// exit 2 with one line naming the file and settings.method.
func TestInferSumProduct(t *testing.T) {
	data, err := os.ReadFile("../../examples/models/hmm.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, method string, mod func(map[string]any)) string {
		c := map[string]any{}
		for k, v := range m {
			c[k] = v
		}
		c["settings"] = map[string]any{"method": method, "iterations": 500, "tolerance": 1e-12}
		if mod != nil {
			mod(c)
		}
		b, _ := json.Marshal(c)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	finalF := func(path string) float64 {
		var out, errb bytes.Buffer
		if code := run([]string{"infer", path, "--json"}, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", path, code, errb.String())
		}
		var res struct {
			FreeEnergy []float64 `json:"free_energy"`
		}
		if err := json.Unmarshal(out.Bytes(), &res); err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(res.FreeEnergy); i++ {
			if res.FreeEnergy[i] > res.FreeEnergy[i-1]+1e-9 {
				t.Errorf("%s: F rose at sweep %d", path, i)
			}
		}
		return res.FreeEnergy[len(res.FreeEnergy)-1]
	}
	fsp, fvmp := finalF(write("sp.json", "sum-product", nil)), finalF(write("vmp.json", "vmp", nil))
	if !(fsp < fvmp) {
		t.Errorf("sum-product F %v not below VMP's %v", fsp, fvmp)
	}
	bad := write("bad.json", "bp", nil)
	loop := filepath.Join(dir, "loop.json")
	if err := os.WriteFile(loop, []byte(`{"variables": [{"name": "a", "family": "categorical", "shape": [2]},
	  {"name": "b", "family": "categorical", "shape": [2]}, {"name": "c", "family": "categorical", "shape": [2]}],
	 "factors": [{"node": "categorical", "out": "a", "p": [0.5, 0.5]},
	  {"node": "transition", "out": "b", "in": ["a"], "matrix": [[0.9, 0.2], [0.1, 0.8]]},
	  {"node": "transition", "out": "c", "in": ["a", "b"], "matrix": [[[0.9, 0.2], [0.3, 0.4]], [[0.1, 0.8], [0.7, 0.6]]]}],
	 "settings": {"method": "sum-product"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want []string
	}{{bad, []string{bad, "settings.method", `"bp"`}}, {loop, []string{loop, "settings.method", "loop", `"a"`, `"b"`, `"loopy": true`}}} {
		var out, errb bytes.Buffer
		code := run([]string{"infer", c.path}, &out, &errb)
		if code != 2 || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q: want 2 and one line", c.path, code, errb.String())
		}
		for _, w := range c.want {
			if !strings.Contains(errb.String(), w) {
				t.Errorf("%s: stderr %q lacks %q", c.path, errb.String(), w)
			}
		}
	}
}

// TestInferLoopy: "loopy": true runs approximate loopy belief propagation
// on a model whose discrete variables form a loop; a damping outside
// (0, 1), a damping without loopy, and loopy without sum-product exit 2
// naming the field.
func TestInferLoopy(t *testing.T) {
	dir := t.TempDir()
	model := func(settings string) string {
		p := filepath.Join(dir, fmt.Sprintf("m%d.json", len(settings)))
		data := `{"variables": [{"name": "a", "family": "categorical", "shape": [2]},
		  {"name": "b", "family": "categorical", "shape": [2]}, {"name": "c", "family": "categorical", "shape": [2]}],
		 "factors": [{"node": "categorical", "out": "a", "p": [0.5, 0.5]},
		  {"node": "transition", "out": "b", "in": ["a"], "matrix": [[0.9, 0.2], [0.1, 0.8]]},
		  {"node": "transition", "out": "c", "in": ["a", "b"], "matrix": [[[0.9, 0.2], [0.3, 0.4]], [[0.1, 0.8], [0.7, 0.6]]]}],
		 "settings": ` + settings + `}`
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var out, errb bytes.Buffer
	ok := model(`{"method": "sum-product", "loopy": true, "damping": 0.4}`)
	if code := run([]string{"infer", ok}, &out, &errb); code != 0 {
		t.Fatalf("loopy: exit %d: %s", code, errb.String())
	}
	for _, c := range []struct {
		settings string
		want     []string
	}{
		{`{"method": "sum-product", "loopy": true, "damping": 0}`, []string{"settings.damping", "(0, 1)"}},
		{`{"method": "sum-product", "loopy": true, "damping": -0.5}`, []string{"settings.damping"}},
		{`{"method": "sum-product", "damping": 0.5}`, []string{"settings.damping", "loopy"}},
		{`{"loopy": true}`, []string{"settings.loopy", "sum-product"}},
	} {
		p := model(c.settings)
		out.Reset()
		errb.Reset()
		code := run([]string{"infer", p}, &out, &errb)
		if code != 2 || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q: want 2 and one line", c.settings, code, errb.String())
		}
		for _, w := range append(c.want, p) {
			if !strings.Contains(errb.String(), w) {
				t.Errorf("%s: stderr %q lacks %q", c.settings, errb.String(), w)
			}
		}
	}
}

// TestInferData: arbor infer --data prints one line per data line, each the
// object a separate run with those observed values prints; a bad line
// exits 2 naming the file, the line and the variable.
func TestInferData(t *testing.T) {
	dir := t.TempDir()
	lines := []string{`{"o0": 1, "o3": [0.2, 0.5, 0.3]}`, ``, `{"o1": 2}`}
	dataPath := filepath.Join(dir, "d.jsonl")
	if err := os.WriteFile(dataPath, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"infer", "../../examples/models/hmm.json", "--data", dataPath, "--json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	got := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(got) != 2 {
		t.Fatalf("%d output lines, want 2 (one per data line)", len(got))
	}
	base, err := os.ReadFile("../../examples/models/hmm.json")
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range []string{lines[0], lines[2]} {
		var obs map[string]any
		if err := json.Unmarshal([]byte(line), &obs); err != nil {
			t.Fatal(err)
		}
		var f map[string]any
		_ = json.Unmarshal(base, &f)
		for _, v := range f["variables"].([]any) {
			vm := v.(map[string]any)
			if o, ok := obs[vm["name"].(string)]; ok {
				vm["observed"] = o
			}
		}
		edited, _ := json.Marshal(f)
		p := filepath.Join(dir, fmt.Sprintf("m%d.json", i))
		if err := os.WriteFile(p, edited, 0o644); err != nil {
			t.Fatal(err)
		}
		var one bytes.Buffer
		if code := run([]string{"infer", p, "--json"}, &one, &errb); code != 0 {
			t.Fatalf("separate run: exit %d: %s", code, errb.String())
		}
		if strings.TrimSpace(one.String()) != got[i] {
			t.Errorf("data line %d: %s\nseparate run: %s", i+1, got[i], one.String())
		}
	}
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"o0\": 0}\n\n{\"o4\": [1]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	// The data sets stream: line 1's result is written before line 3 is
	// read and refused.
	code := run([]string{"infer", "../../examples/models/hmm.json", "--data", bad, "--json"}, &out, &errb)
	if code != 2 || strings.Count(out.String(), "\n") != 1 || !strings.Contains(errb.String(), bad+":3") || !strings.Contains(errb.String(), `"o4"`) || strings.Count(errb.String(), "\n") != 1 {
		t.Errorf("exit %d, stdout %q, stderr %q: want line 1's result, then 2 and one line naming %s:3 and \"o4\"", code, out.String(), errb.String(), bad)
	}
}
