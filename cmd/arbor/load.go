package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"

	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/pomdp"
)

// The loaders of the files the agents' commands read (docs/formats.md):
// one for POMDP files and one for mazes, shared by arbor aci and arbor
// btai, so that the same bad file gets the same message from both. Every
// fault is bad input (exit status 2), in one line starting with the flag
// and the path.

// readInput reads the file given to --flagName; a missing file, a
// directory or a read error is bad input: "--flag PATH: cannot read: WHY".
func readInput(flagName, path string) ([]byte, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, badInput("--%s %s: cannot read: is a directory, want a file", flagName, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		why := err.Error()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			why = pe.Err.Error() // the path is already in the message
		}
		return nil, badInput("--%s %s: cannot read: %s", flagName, path, why)
	}
	return data, nil
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
	// A syntax error is located here, as a field path, before the loader
	// (which reports only the byte offset) sees the data.
	var v any
	var se *json.SyntaxError
	if err := json.Unmarshal(data, &v); errors.As(err, &se) {
		at := ""
		if p := aciJSONPath(data, se.Offset-1); p != "" {
			at = p + ": "
		}
		hint := ""
		if k := se.Offset - 1; k >= 0 && k < int64(len(data)) && (data[k] == 'N' || data[k] == 'I') {
			hint = " (JSON has no NaN or Infinity)"
		}
		return nil, badInput("--model %s: %sinvalid JSON at byte %d: %v%s", path, at, se.Offset, err, hint)
	}
	m, err := pomdp.Parse(data)
	if err != nil {
		return nil, badInput("--model %s: %v", path, err)
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
