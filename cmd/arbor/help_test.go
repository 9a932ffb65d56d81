package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// helpFlag is one flag of a -h text: its name and the default it prints
// ("" when it prints none).
type helpFlag struct {
	name, def  string
	hasDefault bool
}

// helpFlags reads the flags of a -h text (flag.PrintDefaults' format:
// "  -name type" then the usage, indented, ending in "(default X)").
func helpFlags(t *testing.T, text string) []helpFlag {
	t.Helper()
	head := regexp.MustCompile(`^  -([a-z0-9-]+)`)
	def := regexp.MustCompile(`\(default (.*)\)$`)
	var flags []helpFlag
	for _, line := range strings.Split(text, "\n") {
		if m := head.FindStringSubmatch(line); m != nil {
			flags = append(flags, helpFlag{name: m[1]})
			continue
		}
		if len(flags) == 0 || !strings.HasPrefix(line, "    \t") {
			continue
		}
		if m := def.FindStringSubmatch(line); m != nil {
			f := &flags[len(flags)-1]
			f.def, f.hasDefault = strings.Trim(m[1], `"`), true
		}
	}
	return flags
}

// timings matches the JSON fields and human phrases that measure time,
// the only output allowed to differ between two runs of one command.
var timings = regexp.MustCompile(`"[a-z_]*seconds[a-z_]*":[-+0-9.eE]+|[0-9.]+ s planning|[0-9]+ planning iterations per second|"seconds":[-+0-9.eE]+`)

// TestHelpDefaultsAreUsed: for every planner and every verb it shares
// with the others, each default that `-h` prints is the value the command
// uses when the flag is left out. Giving the flag explicitly with the
// printed value must give the same output (times aside) and the same
// files as leaving it out.
func TestHelpDefaultsAreUsed(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every flag of every verb of every planner twice (CI runs it without -short)")
	}
	dir := t.TempDir()
	learn := "../../examples/fit/tmaze-learn.json"
	maze := "../../examples/mazes/1.maze"
	// The novelty of btai is over the A of a model of one factor and one
	// modality without concentrations a: its flags run on this one.
	tiny := btaiData("tiny-pomdp.json")
	tinyData := filepath.Join(dir, "tiny.csv")
	data := filepath.Join(dir, "data.csv")
	if code, _, errs := runArgs("aci", "simulate", "--model", learn, "--horizon", "1", "--subjects", "2", "--trials", "2", "--steps", "3",
		"--draw", "alpha=lognormal:0,0.5", "--truth", filepath.Join(dir, "truth0.csv"), "-o", data); code != 0 {
		t.Fatalf("simulate the data: %s", errs)
	}
	if code, _, errs := runArgs("aci", "simulate", "--model", tiny, "--horizon", "1", "--subjects", "2", "--trials", "2", "--steps", "3",
		"--draw", "alpha=lognormal:0,0.5", "--truth", filepath.Join(dir, "truth1.csv"), "-o", tinyData); code != 0 {
		t.Fatalf("simulate the data of the one-factor model: %s", errs)
	}
	plannerArgs := map[string][]string{"aci": {"--horizon", "1"}, "btai": {"--iterations", "5"}, "si": {"--depth", "1"}}
	out := filepath.Join(dir, "out.csv")
	truth := filepath.Join(dir, "truth.csv")
	verbArgs := map[string][]string{
		"run":      {"--model", learn, "--steps", "3", "--episodes", "2", "--json"},
		"replay":   {"--model", learn, "--data", data, "--json"},
		"fit":      {"--model", learn, "--data", data, "--free", "alpha", "--restarts", "1", "--json"},
		"simulate": {"--model", learn, "--truth", truth, "-o", out, "--subjects", "2", "--trials", "2", "--steps", "3", "--draw", "alpha=lognormal:0,0.5", "--json"},
		"recover":  {"--model", learn, "--free", "alpha", "--draw", "alpha=lognormal:0,0.5", "--subjects", "3", "--trials", "2", "--steps", "3", "--restarts", "1", "--json"},
	}
	// The flags that apply only with others: the base run gets these.
	context := map[string][]string{
		"beta":           {"--infer-gamma"},
		"novelty-scale":  {"--novelty"},
		"novelty-prior":  {"--novelty"},
		"novelty-carry":  {"--novelty"},
		"rollout-length": {"--rollouts", "1"},
		"plot-dpi":       {"--plot", filepath.Join(dir, "p.png")},
		"plot-episode":   {"--plot", filepath.Join(dir, "p.svg")},
	}
	mazeOnly := map[string]bool{"noise": true, "pref-precision": true}
	for _, c := range plannerCmds() {
		for _, v := range []string{"run", "replay", "fit", "simulate", "recover"} {
			code, help, errs := runArgs(c.p.Name, v, "-h")
			if code != 0 {
				t.Fatalf("%s %s -h: exit %d: %s", c.p.Name, v, code, errs)
			}
			for _, f := range helpFlags(t, help) {
				if !f.hasDefault {
					continue
				}
				t.Run(c.p.Name+"_"+v+"_"+f.name, func(t *testing.T) {
					base := append(slices.Clone(plannerArgs[c.p.Name]), verbArgs[v]...)
					if mazeOnly[f.name] {
						base = append(slices.Clone(plannerArgs[c.p.Name]), "--maze", maze, "--steps", "3", "--json")
					}
					if strings.HasPrefix(f.name, "novelty-") {
						base = swapValue(swapValue(base, "--model", tiny), "--data", tinyData)
					}
					base = append(withoutFlag(base, f.name), context[f.name]...)
					left := runOutputs(t, c.p.Name, v, base, out, truth)
					given := runOutputs(t, c.p.Name, v, append(slices.Clone(base), "--"+f.name+"="+f.def), out, truth)
					if left != given {
						t.Errorf("--%s %s (the printed default) changes the output:\nleft out:\n%s\ngiven:\n%s", f.name, f.def, left, given)
					}
				})
			}
		}
	}
}

// runArgs runs arbor with the words of args and returns its exit status,
// standard output and standard error.
func runArgs(args ...string) (int, string, string) {
	var stdout, stderr strings.Builder
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// runOutputs runs `arbor planner verb args` and returns what it wrote
// (its exit status, standard output and error, and the files out and
// truth when it wrote them), times masked.
func runOutputs(t *testing.T, planner, verb string, args []string, files ...string) string {
	t.Helper()
	for _, f := range files {
		os.Remove(f)
	}
	code, stdout, stderr := runArgs(append([]string{planner, verb}, args...)...)
	if code != 0 {
		t.Fatalf("arbor %s %s %s: exit %d: %s", planner, verb, strings.Join(args, " "), code, stderr)
	}
	var b strings.Builder
	b.WriteString(timings.ReplaceAllString(stdout, "TIME"))
	b.WriteString(stderr)
	for _, f := range files {
		if data, err := os.ReadFile(f); err == nil {
			b.WriteString("\n" + filepath.Base(f) + ":\n" + string(data))
		}
	}
	return b.String()
}

// withoutFlag returns args without flag name and its value.
func withoutFlag(args []string, name string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == "--"+name {
			i++ // its value
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// TestSubcommandLists: every planner's "unknown subcommand" and "want a
// subcommand" errors list exactly the subcommands its -h lists, and
// arbor's usage names them all.
func TestSubcommandLists(t *testing.T) {
	for _, c := range plannerCmds() {
		code, help, _ := runArgs(c.p.Name, "-h")
		if code != 0 {
			t.Fatalf("%s -h: exit %d", c.p.Name, code)
		}
		var names []string
		for _, line := range strings.Split(help, "\n") {
			if rest, ok := strings.CutPrefix(line, "  arbor "+c.p.Name+" "); ok {
				names = append(names, strings.Fields(rest)[0])
			}
		}
		if len(names) != 6 {
			t.Errorf("%s -h lists %v, want its own subcommand and run, replay, fit, simulate, recover", c.p.Name, names)
		}
		want := "(want " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1] + ")"
		if _, _, errs := runArgs(c.p.Name, "bogus"); !strings.Contains(errs, `unknown subcommand "bogus" `+want) {
			t.Errorf("%s bogus: %q, want the list %s", c.p.Name, errs, want)
		}
		if _, _, errs := runArgs(c.p.Name); !strings.Contains(errs, "want a subcommand: "+strings.TrimSuffix(strings.TrimPrefix(want, "(want "), ")")) {
			t.Errorf("%s: %q, want the list %s", c.p.Name, errs, want)
		}
		_, usage, _ := runArgs("-h")
		for _, n := range names {
			if !strings.Contains(usage, c.p.Name+" "+n) {
				t.Errorf("arbor -h does not name %s %s:\n%s", c.p.Name, n, usage)
			}
		}
	}
}

// swapValue returns args with the value of flag name replaced by value.
func swapValue(args []string, name, value string) []string {
	out := slices.Clone(args)
	for i := 0; i+1 < len(out); i++ {
		if out[i] == name {
			out[i+1] = value
		}
	}
	return out
}
