// Command tmaze runs the classic active inference agent (package aci) in the
// T-maze of envs (Friston et al. 2015): four locations (start, cue, left arm,
// right arm) and two contexts (which arm is rewarded); the cue tells the
// context with validity 0.95 and the arms are absorbing.
//
// The agent plans two-step policies with the classic expected free energy
// (paper eq. 9). On the first trial it does not know the context, so it goes
// to the cue and then to the arm the cue names. It learns the prior over
// initial states (Dirichlet d) at the end of every trial; with the context
// fixed to "reward left" for 32 trials it comes to expect it and goes
// straight to the left arm.
//
// Usage: go run ./examples/tmaze [-trials 32] [-seed 1] [-context left|right] [-past vmp|filter]
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/arbor-ai/arbor/pomdp"
)

func main() {
	trials := flag.Int("trials", 32, "number of trials")
	seed := flag.Uint64("seed", 1, "seed of the environment")
	ctx := flag.String("context", "left", "rewarded arm of every trial: left or right")
	pastFlag := flag.String("past", "filter", "past inference: filter (exact, the aci default) or vmp (the paper's mean field)")
	flag.Parse()
	past, err := pomdp.ParsePastInference(*pastFlag)
	if err != nil {
		fmt.Fprintf(os.Stderr, "tmaze: -past %v\n", err)
		os.Exit(2)
	}
	context := -1
	switch *ctx {
	case "left":
		context = 0
	case "right":
		context = 1
	default:
		fmt.Fprintf(os.Stderr, "tmaze: -context %q: want left or right\n", *ctx)
		os.Exit(2)
	}
	if *trials < 1 {
		fmt.Fprintf(os.Stderr, "tmaze: -trials %d: want >= 1\n", *trials)
		os.Exit(2)
	}
	res, err := Run(Config{Trials: *trials, Seed: *seed, Context: context, Past: past})
	if err != nil {
		fmt.Fprintln(os.Stderr, "tmaze:", err)
		os.Exit(1)
	}
	Print(os.Stdout, res)
}

// Print writes the trial-by-trial summary as a table whose columns line
// up: the path column is as wide as the longest path.
func Print(w io.Writer, res []Trial) {
	paths := make([]string, len(res))
	width := len("path")
	for k, t := range res {
		names := make([]string, len(t.Path))
		for i, l := range t.Path {
			names[i] = locationNames[l]
		}
		paths[k] = strings.Join(names, " -> ")
		width = max(width, len(paths[k]))
	}
	fmt.Fprintf(w, "%5s  %-*s  %-10s  %s\n", "trial", width, "path", "outcome", "P(left context) at t=0")
	straight := 0
	for k, t := range res {
		out := "punishment"
		if t.Rewarded {
			out = "reward"
		}
		if t.Straight() {
			straight++
		}
		fmt.Fprintf(w, "%5d  %-*s  %-10s  %.3f\n", t.Index+1, width, paths[k], out, t.PriorLeft)
	}
	fmt.Fprintf(w, "went straight to an arm on %d of %d trials\n", straight, len(res))
}
