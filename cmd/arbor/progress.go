package main

import (
	"io"
	"os"
	"time"

	"github.com/arbor-ai/arbor/internal/output"
)

// progressEvery is the time between two progress reports (a variable so
// that tests can shorten it).
var progressEvery = time.Second

// stderrOut is the standard error of the running command (run sets it), on
// which long runs report their progress.
var stderrOut io.Writer = os.Stderr

// startProgress reports a long run on standard error (output.Progress).
func startProgress(on bool, total int, unit string) *output.Progress {
	return output.StartProgress(stderrOut, on, total, unit, progressEvery)
}
