package model_test

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/arbor-ai/arbor/model"
)

// benchInferFile is `arbor infer --json --data` on a model file: load the
// file, read one data line (named by the environment variable env), infer
// and write the posteriors (Model.InferJSON, which the command runs; with
// graph, Infer and WriteOutput on the graph of every element).
func benchInferFile(b *testing.B, file, env, maker string, graph bool) {
	line, err := os.ReadFile(os.Getenv(env))
	if err != nil {
		b.Skip("set " + env + " to a data line of " + maker)
	}
	b.ReportAllocs()
	for b.Loop() {
		m, err := model.Load(file)
		if err != nil {
			b.Fatal(err)
		}
		d, err := m.ReadData("data", line)
		if err != nil {
			b.Fatal(err)
		}
		if !graph {
			if _, err := m.InferJSON(context.Background(), "data", d, io.Discard); err != nil {
				b.Fatal(err)
			}
			continue
		}
		res, err := m.Infer(context.Background(), "data", d)
		if err != nil {
			b.Fatal(err)
		}
		if err := m.WriteOutput(io.Discard, res); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTrackingFile is `arbor infer --json --data` on the 2-D tracking
// model: load the file, read one data line of T steps (testdata made by
// bench/tracking_data.py), infer by sum-product and write the posteriors.
// BenchmarkTrackingFileGraph is the same through the graph of every
// element (Infer).
func BenchmarkTrackingFile(b *testing.B) {
	benchInferFile(b, "../examples/models/multivariate/tracking.json", "ARBOR_TRACKING_DATA", "bench/tracking_data.py", false)
}

func BenchmarkTrackingFileGraph(b *testing.B) {
	benchInferFile(b, "../examples/models/multivariate/tracking.json", "ARBOR_TRACKING_DATA", "bench/tracking_data.py", true)
}

// BenchmarkLocalLevelFile is the same on the local-level model
// (examples/models/loops/kalman.json) with a data line of
// bench/local_level_data.py, and BenchmarkLocalLevelFileGraph through
// the graph.
func BenchmarkLocalLevelFile(b *testing.B) {
	benchInferFile(b, "../examples/models/loops/kalman.json", "ARBOR_LOCAL_LEVEL_DATA", "bench/local_level_data.py", false)
}

func BenchmarkLocalLevelFileGraph(b *testing.B) {
	benchInferFile(b, "../examples/models/loops/kalman.json", "ARBOR_LOCAL_LEVEL_DATA", "bench/local_level_data.py", true)
}
