package model

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/schedule"
)

// fuzzSeeds are valid and invalid model files that start the fuzzer off
// near every branch of the loader.
var fuzzSeeds = []string{
	`{"variables": [{"name": "s", "family": "categorical", "shape": [2]}], "factors": [{"node": "categorical", "out": "s", "p": [0.3, 0.7]}]}`,
	`{"variables": [
	  {"name": "theta", "family": "dirichlet", "shape": [3]},
	  {"name": "A", "family": "dirichlet", "shape": [2, 3]},
	  {"name": "s", "family": "categorical", "shape": [3]},
	  {"name": "o", "family": "categorical", "shape": [2], "observed": 1},
	  {"name": "g", "family": "gamma"}],
	 "factors": [
	  {"node": "dirichlet", "out": "theta", "alpha": [1, 1, 1]},
	  {"node": "dirichlet", "out": "A", "alpha": [[1, 1, 1], [1, 1, 1]]},
	  {"node": "categorical", "out": "s", "p": "theta"},
	  {"node": "transition", "out": "o", "in": ["s"], "matrix": "A"},
	  {"node": "gamma", "out": "g", "shape": 1, "rate": 2}],
	 "settings": {"iterations": 200, "tolerance": 1e-10}}`,
	`{"variables": [{"name": "pi", "family": "categorical", "shape": [2]}, {"name": "g", "family": "gamma"}],
	  "factors": [{"node": "gamma", "out": "g", "shape": 1, "rate": 1},
	              {"node": "softmax", "out": "pi", "precision": "g", "values": [1, 2]}]}`,
	`{"variables": [{"name": "a", "family": "categorical", "shape": [2]}, {"name": "b", "family": "categorical", "shape": [2], "observed": [0.2, 0.8]}],
	  "factors": [{"node": "categorical", "out": "a", "p": [0.5, 0.5]},
	              {"node": "transition", "out": "b", "in": ["a"], "matrix": [[0.9, 0.1], [0.1, 0.9]]}]}`,
	`{"variables": [{"name": "s", "family": "categorical", "shape": [2], "observed": 0}], "factors": [{"node": "categorical", "out": "s", "p": [1, 0]}]}`,
	`{"variables": [{"name": "s", "family": "categorical", "shape": [2]}], "factors": [{"node": "categorical", "out": "s", "p": [1e999, 0]}]}`,
	`{"variables": [{"name": "d", "family": "dirichlet", "shape": [2, 2]}], "factors": [{"node": "dirichlet", "out": "d", "alpha": [[1, -1], [1, 1]]}]}`,
	`{"variables": [{"name": "s", "family": "categorical", "shape": [2]}, {"name": "s", "family": "categorical", "shape": [2]}]}`,
	`{"variables": [{"name": "s", "family": "poisson", "shape": [2]}]}`,
	`{"variables": [{"name": "o", "family": "categorical", "shape": [3], "observed": 0}], "factors": [{"node": "categorical", "out": "o", "p": [0, 0, 1]}]}`,
	`{"variables": [{"name": "t", "family": "dirichlet", "shape": [3]}], "factors": [{"node": "dirichlet", "out": "t", "alpha": [1e308, 1e308, 1e308]}]}`,
	`{"variables": [{"name": "g", "family": "gamma"}], "factors": [{"node": "gamma", "out": "g", "shape": 1e308, "rate": 1e-308}]}`,
	`{"variables": [{"name": "m", "family": "normal"}, {"name": "t", "family": "gamma"}, {"name": "y", "family": "normal", "observed": 1.5}],
	  "factors": [{"node": "gamma", "out": "t", "shape": 1, "rate": 1}, {"node": "normal", "out": "m", "mean": 0, "precision": 0.01},
	              {"node": "normal", "out": "y", "mean": {"of": "m", "scale": 2, "offset": -1}, "precision": "t"}],
	  "settings": {"method": "sum-product"}}`,
	`{"variables": [{"name": "z", "family": "categorical", "shape": [2]}, {"name": "m", "family": "normal"}, {"name": "y", "family": "normal", "observed": -0.5}],
	  "factors": [{"node": "categorical", "out": "z", "p": [0.5, 0.5]}, {"node": "normal", "out": "m", "mean": 1e150, "precision": 1e-150},
	              {"node": "normal-mixture", "out": "y", "switch": "z", "means": ["m", 0], "precisions": [1, 1e150]}]}`,
	`{"variables": [{"name": "x", "family": "normal"}, {"name": "y", "family": "normal"}], "factors": [{"node": "normal", "out": "y", "mean": "x", "precision": 1}], "settings": {"method": "sum-product"}}`,
	`{"variables": [{"name": "w", "family": "normal"}, {"name": "b", "family": "normal"}, {"name": "t", "family": "gamma"}, {"name": "y", "family": "normal", "observed": 0.5}],
	  "factors": [{"node": "gamma", "out": "t", "shape": 1, "rate": 1}, {"node": "normal", "out": "w", "mean": 0, "precision": 1}, {"node": "normal", "out": "b", "mean": 0, "precision": 1},
	              {"node": "normal", "out": "y", "mean": {"sum": [{"of": "w", "scale": 2}, {"of": "b", "scale": -1e150}], "offset": "b"}, "precision": "t"}]}`,
	`{"variables": [`,
	`[]`,
	``,
}

// FuzzParse feeds arbitrary bytes to the model loader. Parse must never
// panic; a failure must be one *Error whose message is a single line that
// starts with the file name; a model it accepts must survive a few sweeps
// of inference and DOT export without panicking, and a run that fails must
// fail as bad input (Model.RunError gives an *Error) while one that succeeds
// must give JSON-encodable output.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse("fuzz.json", data)
		if err != nil {
			msg := err.Error()
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T, want *Error: %v", err, err)
			}
			if strings.ContainsAny(msg, "\n\r") {
				t.Fatalf("multi-line error %q", msg)
			}
			if !strings.HasPrefix(msg, "model: fuzz.json: ") {
				t.Fatalf("error does not name the file: %q", msg)
			}
			return
		}
		if m == nil || m.Graph == nil {
			t.Fatal("nil model without an error")
		}
		size := 0
		for _, v := range m.Graph.Variables() {
			size += len(v.Stats())
		}
		if size > 1<<16 {
			return // big but valid: inference would only slow the fuzzer down
		}
		s := m.Settings
		s.Iterations = min(max(s.Iterations, 1), 5)
		res, err := schedule.Run(context.Background(), m.Graph, &s)
		if err != nil {
			// A run on a loaded model fails only through the model's own
			// fault, which must name the file in one line (an *Error).
			rerr := m.RunError(err)
			if _, ok := rerr.(*Error); !ok {
				t.Fatalf("run error %v maps to %T, want *Error", err, rerr)
			}
			if msg := rerr.Error(); strings.ContainsAny(msg, "\n\r") || !strings.HasPrefix(msg, "model: fuzz.json: ") {
				t.Fatalf("run error %q", msg)
			}
		} else {
			out := m.Output(res)
			if len(out.FreeEnergy) != res.Iterations {
				t.Fatalf("%d F entries for %d sweeps", len(out.FreeEnergy), res.Iterations)
			}
			// What arbor infer --json prints must encode: no NaN or Inf.
			if _, err := json.Marshal(out); err != nil {
				t.Fatalf("output does not encode: %v", err)
			}
		}
		if err := m.Graph.WriteDOT(io.Discard); err != nil {
			t.Fatalf("WriteDOT: %v", err)
		}
	})
}
