package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/arbor-ai/arbor/aci"
)

// childEnv marks a child process: wall re-executes itself with it set.
const childEnv = "ARBOR_WALL_CHILD"

func main() {
	if os.Getenv(childEnv) == "1" {
		if err := child(os.Args[1:], os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "wall child:", err)
			os.Exit(1)
		}
		return
	}
	if err := parent(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "wall:", err)
		var ue usageError
		if errors.As(err, &ue) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usageError struct{ error }

// childResult is what a child prints: one JSON object.
type childResult struct {
	N             int     `json:"n"`
	Policies      int     `json:"policies"`
	Action        int     `json:"action"`
	SetupSeconds  float64 `json:"setup_seconds"`  // load the maze, build the model
	PlanSeconds   float64 `json:"plan_seconds"`   // observation to action
	Solved        bool    `json:"solved"`         // search mode
	Steps         int     `json:"steps"`          // search mode
	SearchSeconds float64 `json:"search_seconds"` // search mode: the whole search
}

// child is one measurement: plan one step (mode "one") or the whole search
// (mode "search") with policies of length n.
func child(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("wall child", flag.ContinueOnError)
	n := fs.Int("n", 2, "policy length")
	mazeFile := fs.String("maze", "", "maze file")
	planner := fs.String("planner", plannerAgent, "planner")
	mode := fs.String("mode", "one", "one or search")
	steps := fs.Int("steps", 50, "search: maximum actions")
	if err := fs.Parse(args); err != nil {
		return err
	}
	t0 := time.Now()
	p, err := loadProblem(*mazeFile)
	if err != nil {
		return err
	}
	np, err := aci.NumPolicies(p.model.NumActions(), *n, 1<<40)
	if err != nil {
		return err
	}
	r := childResult{N: *n, Policies: np, SetupSeconds: time.Since(t0).Seconds()}
	ctx := context.Background()
	t1 := time.Now()
	switch *mode {
	case "one":
		if r.Action, err = planOneStep(ctx, p, *planner, *n); err != nil {
			return err
		}
		r.PlanSeconds = time.Since(t1).Seconds()
	case "search":
		s, err := search(ctx, p, *n, *steps)
		if err != nil {
			return err
		}
		r.Solved, r.Steps, r.SearchSeconds = s.Solved, s.Steps, time.Since(t1).Seconds()
	default:
		return fmt.Errorf("-mode %q: want one or search", *mode)
	}
	return json.NewEncoder(w).Encode(r)
}

// measurement is one child process seen from the parent.
type measurement struct {
	childResult
	WallSeconds float64 // the child process, exec to exit
	MaxRSS      int64   // peak resident set size, bytes
}

// runChild executes this program as a child and measures it.
func runChild(exe string, args []string) (measurement, error) {
	var m measurement
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	t0 := time.Now()
	err := cmd.Run()
	m.WallSeconds = time.Since(t0).Seconds()
	if err != nil {
		return m, fmt.Errorf("child %v: %v: %s", args, err, strings.TrimSpace(errb.String()))
	}
	if err := json.Unmarshal(out.Bytes(), &m.childResult); err != nil {
		return m, fmt.Errorf("child %v: output %q: %v", args, out.String(), err)
	}
	m.MaxRSS = maxRSS(cmd.ProcessState)
	return m, nil
}

// row is the summary of one N: the median of the one-step runs (by planning
// time), the largest peak RSS among them, and the optional search.
type row struct {
	N, Policies, Action, Runs int
	PlanSeconds, WallSeconds  float64
	MaxRSS                    int64
	Search                    *measurement
}

func summarise(runs []measurement) row {
	s := slices.Clone(runs)
	slices.SortFunc(s, func(a, b measurement) int {
		switch {
		case a.PlanSeconds < b.PlanSeconds:
			return -1
		case a.PlanSeconds > b.PlanSeconds:
			return 1
		}
		return 0
	})
	med := s[len(s)/2]
	r := row{N: med.N, Policies: med.Policies, Action: med.Action, Runs: len(s),
		PlanSeconds: med.PlanSeconds, WallSeconds: med.WallSeconds}
	for _, m := range s {
		r.MaxRSS = max(r.MaxRSS, m.MaxRSS)
	}
	return r
}

func parent(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("wall", flag.ContinueOnError)
	mazeFile := fs.String("maze", "examples/mazes/1.maze", "maze file (docs/formats.md)")
	minN := fs.Int("min", 2, "shortest policy length N")
	maxN := fs.Int("max", 8, "longest policy length N")
	runs := fs.Int("runs", 3, "fresh processes per N for the one-step measurement (the median is reported)")
	planner := fs.String("planner", plannerAgent, "agent (aci.Agent.Act on the factor graph) or stream (aci.TopPolicies only)")
	doSearch := fs.Bool("search", false, "also time the whole search (agent planner) per N")
	steps := fs.Int("steps", 50, "search: maximum actions")
	pngFile := fs.String("png", "", "draw the plot into this PNG file (e.g. docs/wall.png)")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	switch {
	case fs.NArg() > 0:
		return usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	case *minN < 1 || *maxN < *minN || *maxN > 12:
		return usageError{fmt.Errorf("-min %d -max %d: want 1 <= min <= max <= 12", *minN, *maxN)}
	case *runs < 1:
		return usageError{fmt.Errorf("-runs %d: want >= 1", *runs)}
	case *planner != plannerAgent && *planner != plannerStream:
		return usageError{fmt.Errorf("-planner %q: want agent or stream", *planner)}
	case *steps < 1:
		return usageError{fmt.Errorf("-steps %d: want >= 1", *steps)}
	}
	if _, err := loadProblem(*mazeFile); err != nil {
		return usageError{fmt.Errorf("-maze: %w", err)}
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	load0 := loadAverage()
	var rows []row
	for n := *minN; n <= *maxN; n++ {
		base := []string{"-n", strconv.Itoa(n), "-maze", *mazeFile, "-planner", *planner}
		var ms []measurement
		for range *runs {
			m, err := runChild(exe, append(base, "-mode", "one"))
			if err != nil {
				return err
			}
			ms = append(ms, m)
		}
		r := summarise(ms)
		if *doSearch {
			m, err := runChild(exe, append(base, "-mode", "search", "-steps", strconv.Itoa(*steps)))
			if err != nil {
				return err
			}
			r.Search = &m
		}
		rows = append(rows, r)
		fmt.Fprintf(os.Stderr, "N=%d: %d policies, plan %.4f s, process %.3f s, peak RSS %.1f MB\n",
			n, r.Policies, r.PlanSeconds, r.WallSeconds, mb(r.MaxRSS))
	}
	load1 := loadAverage()
	writeTable(stdout, rows, *mazeFile, *planner, load0, load1)
	if *pngFile != "" {
		if err := drawPlot(*pngFile, rows); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "wrote %s\n", *pngFile)
	}
	return nil
}

// mb converts bytes to megabytes (10^6 bytes).
func mb(b int64) float64 { return float64(b) / 1e6 }

// loadAverage returns the 1, 5 and 15 minute load averages from
// /proc/loadavg, or "" where there is none.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
