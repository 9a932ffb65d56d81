package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/internal/input"
	"github.com/arbor-ai/arbor/internal/output"
	"github.com/arbor-ai/arbor/pomdp"
)

// The loaders of the files the agents' commands read (docs/formats.md):
// one for POMDP files and one for mazes, shared by arbor aci and arbor
// btai, so that the same bad file gets the same message from both. Every
// fault is bad input (exit status 2), in one line starting with the flag
// and the path.

// Every file the command line reads goes through readFile, with one size
// limit and one read timeout, so that a huge file, a device that never
// ends (/dev/zero) or a FIFO that stays silent is refused in one line
// instead of filling the memory or hanging.
const (
	// defaultMaxInput is the size limit of an input file; the environment
	// variable maxInputEnv raises (or lowers) it.
	defaultMaxInput = 64 << 20
	maxInputEnv     = "ARBOR_MAX_INPUT"
)

// readTimeout bounds the wait for a FIFO or device to deliver the whole
// file (a variable so that tests can shorten it).
var readTimeout = 10 * time.Second

// maxInput returns the size limit of input files: ARBOR_MAX_INPUT (bytes,
// or with a K, M or G suffix for KiB, MiB, GiB) or 64 MiB.
func maxInput() (int64, error) {
	s := strings.TrimSpace(os.Getenv(maxInputEnv))
	if s == "" {
		return defaultMaxInput, nil
	}
	mult := int64(1)
	switch strings.ToUpper(s[len(s)-1:]) {
	case "K":
		mult = 1 << 10
	case "M":
		mult = 1 << 20
	case "G":
		mult = 1 << 30
	}
	if mult > 1 {
		s = s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 1 || n > (1<<40)/mult {
		return 0, badInput("%s=%q: want a size in bytes from 1 to 1 TiB, optionally with a K, M or G suffix", maxInputEnv, os.Getenv(maxInputEnv))
	}
	return n * mult, nil
}

// readFile reads the input file path, named in errors by what ("--model
// m.json", "model file m.json"): a missing file, a directory, a file over
// the size limit or a read that does not finish within readTimeout is bad
// input, "WHAT: cannot read: WHY".
func readFile(what, path string) ([]byte, error) {
	limit, err := maxInput()
	if err != nil {
		return nil, err
	}
	f, st, err := openFile(what, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tooBig := func() error {
		return badInput("%s: cannot read: larger than the limit of %s (set %s to raise it)", what, sizeText(limit), maxInputEnv)
	}
	if st.Mode().IsRegular() && st.Size() > limit {
		return nil, tooBig()
	}
	// A FIFO or a device: bound the wait (files without deadlines, the
	// regular ones, ignore this).
	_ = f.SetReadDeadline(time.Now().Add(readTimeout))
	var size int64
	if st.Mode().IsRegular() {
		size = st.Size()
	}
	data, err := input.ReadAll(io.LimitReader(f, limit+1), size, limit+1)
	if errors.Is(err, input.ErrTooLarge) {
		return nil, tooBig()
	}
	if errors.Is(err, input.ErrNUL) {
		return nil, badInput("%s: cannot read: byte %d is NUL: not a text file", what, bytes.IndexByte(data, 0))
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return nil, badInput("%s: cannot read: no end of file after %v", what, readTimeout)
	}
	if err != nil {
		return nil, badInput("%s: cannot read: %v", what, err)
	}
	if int64(len(data)) > limit {
		return nil, tooBig()
	}
	return data, nil
}

// openFile opens the input file path, named in errors by what: a missing
// file ("-" is no name for standard input: /dev/stdin is), a directory or
// a FIFO without a writer within readTimeout is bad input, "WHAT: cannot
// read: WHY". The file is an input of the command: no output may replace
// it (output.RecordInput).
func openFile(what, path string) (*os.File, fs.FileInfo, error) {
	f, err := openInput(path)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return nil, nil, badInput("%s: cannot read: nothing to read after %v (a FIFO without a writer?)", what, readTimeout)
	}
	if err != nil {
		why := err.Error()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			why = pe.Err.Error() // the path is already in the message
		}
		if path == "-" {
			why += " (standard input is /dev/stdin)"
		}
		return nil, nil, badInput("%s: cannot read: %s", what, why)
	}
	st, err := f.Stat()
	if err == nil && st.IsDir() {
		err = errors.New("is a directory, want a file")
	}
	if err != nil {
		f.Close()
		return nil, nil, badInput("%s: cannot read: %v", what, err)
	}
	output.RecordInput(what, path)
	return f, st, nil
}

// checkFiles refuses, before any work, an output that is one of the
// command's inputs or another of its outputs (output.CheckDistinct, the
// file of --shard among the outputs): bad input naming both flags.
func checkFiles(files ...output.NamedFile) error {
	if p := shardJob; p != nil && p.merge == nil {
		files = append(files, output.Out("--out", p.file()))
	}
	if err := output.CheckDistinct(files...); err != nil {
		return badInput("%v", err)
	}
	return nil
}

// openInput opens path for reading. Opening a FIFO blocks until a writer
// opens it too, so it is opened on a goroutine and given up after
// readTimeout (os.ErrDeadlineExceeded; the goroutine stays blocked until
// the process exits, which follows the error). The file is an input of
// the command (output.RecordInput).
func openInput(path string) (*os.File, error) {
	output.RecordInput(path, path)
	st, err := os.Stat(path)
	if err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		return os.Open(path)
	}
	type result struct {
		f   *os.File
		err error
	}
	done := make(chan result, 1)
	go func() {
		f, err := os.Open(path)
		done <- result{f, err}
	}()
	select {
	case r := <-done:
		return r.f, r.err
	case <-time.After(readTimeout):
		return nil, os.ErrDeadlineExceeded
	}
}

// sizeText writes n bytes as "64 MiB", "1.5 KiB" or "100 bytes".
func sizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', -1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', -1, 64) + " KiB"
	}
	return fmt.Sprintf("%d bytes", n)
}

// readInput reads the file given to --flagName (see readFile); errors read
// "--flag PATH: cannot read: WHY".
func readInput(flagName, path string) ([]byte, error) {
	return readFile("--"+flagName+" "+path, path)
}

// loadPOMDP reads and validates the --model file. Every fault is bad
// input (exit status 2) and the message starts with "--model PATH:" followed
// by the field and the fault, e.g.
// "--model m.json: B[1]: column 2 sums to 0.93, want 1 (tolerance 1e-6)".
func loadPOMDP(path string) (*pomdp.Model, error) {
	if path == "" {
		return nil, badInput("--model: missing (want a POMDP file, docs/formats.md)")
	}
	data, err := readInput("model", path)
	if err != nil {
		return nil, err
	}
	// pomdp.Parse locates a syntax error as a field path itself, with the
	// hint for NaN and Infinity, without decoding the file twice.
	m, err := pomdp.Parse(data)
	if err != nil {
		return nil, badInput("--model %s: %s", path, output.Reason(err))
	}
	return m, nil
}

// loadMaze reads and parses the --maze file. Errors read "--maze PATH: line
// L, column C: FAULT".
func loadMaze(path string) (*envs.Maze, error) {
	data, err := readInput("maze", path)
	if err != nil {
		return nil, err
	}
	mz, err := envs.ParseMaze(bytes.NewReader(data))
	if err != nil {
		return nil, badInput("--maze %s: %v", path, err)
	}
	return mz, nil
}

// loadMazeModel reads the --maze file and builds the agent's model of it
// with the given noise and preference precision.
func loadMazeModel(path string, noise, pref float64) (*envs.Maze, *pomdp.Model, error) {
	mz, err := loadMaze(path)
	if err != nil {
		return nil, nil, err
	}
	m, err := mz.POMDP(noise, pref)
	if err != nil {
		return nil, nil, badInput("--maze %s: %v", path, err)
	}
	return mz, m, nil
}

// obsArg resolves --obs against model m (read from file): an observation
// index for a model with one modality, or one outcome index per modality,
// comma-separated in modality order ("--obs 0,2"), for a factorised one.
// Errors name the flag, what was wrong and the file.
func obsArg(raw string, m *pomdp.Model, file string) (int, error) {
	parts := strings.Split(raw, ",")
	if m.NumModalities() == 1 && len(parts) == 1 {
		o, err := strconv.Atoi(strings.TrimSpace(raw))
		if err != nil {
			return 0, badInput("--obs: invalid value %q: want an observation index in [0, %d)", shortArg(raw), m.NumObs())
		}
		if o < 0 || o >= m.NumObs() {
			return 0, badInput("--obs: %d out of range [0, %d) (number of observations in --model %s)", o, m.NumObs(), file)
		}
		return o, nil
	}
	names := make([]string, m.NumModalities())
	for i := range names {
		names[i] = fmt.Sprintf("%s (%d outcomes)", m.ModalityName(i), m.ModalitySize(i))
	}
	if len(parts) != m.NumModalities() {
		return 0, badInput("--obs %s: %d entries, want %d, one outcome index per modality of --model %s: %s", shortArg(raw), len(parts), m.NumModalities(), file, strings.Join(names, ", "))
	}
	outcomes := make([]int, len(parts))
	for i, p := range parts {
		o, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return 0, badInput("--obs %s: entry %d (%s): invalid value %q, want an outcome index in [0, %d) (--model %s)", shortArg(raw), i, m.ModalityName(i), shortArg(p), m.ModalitySize(i), file)
		}
		if o < 0 || o >= m.ModalitySize(i) {
			return 0, badInput("--obs %s: entry %d (%s): %d out of range [0, %d) (--model %s)", shortArg(raw), i, m.ModalityName(i), o, m.ModalitySize(i), file)
		}
		outcomes[i] = o
	}
	o, err := m.EncodeObs(outcomes)
	if err != nil {
		return 0, badInput("--obs %s: %v (--model %s)", shortArg(raw), err, file)
	}
	return o, nil
}

// shortArg cuts a command-line value to 40 bytes for an error message.
func shortArg(s string) string {
	if len(s) <= 40 {
		return s
	}
	return s[:40] + "..."
}
