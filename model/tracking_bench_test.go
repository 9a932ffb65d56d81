package model_test

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/arbor-ai/arbor/model"
)

// BenchmarkTrackingFile is `arbor infer --json --data` on the 2-D tracking
// model: load the file, read one data line of T steps (testdata made by
// bench/tracking_data.py), infer by sum-product and write the posteriors.
func BenchmarkTrackingFile(b *testing.B) {
	line, err := os.ReadFile(os.Getenv("ARBOR_TRACKING_DATA"))
	if err != nil {
		b.Skip("set ARBOR_TRACKING_DATA to a data line of bench/tracking_data.py")
	}
	b.ReportAllocs()
	for b.Loop() {
		m, err := model.Load("../examples/models/multivariate/tracking.json")
		if err != nil {
			b.Fatal(err)
		}
		d, err := m.ReadData("data", line)
		if err != nil {
			b.Fatal(err)
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
