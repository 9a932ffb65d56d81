package model

import (
	"os"
	"testing"
)

func BenchmarkZZWritten(b *testing.B) {
	data, err := os.ReadFile("/tmp/ll_written.json")
	if err != nil {
		b.Skip()
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("w", data); err != nil {
			b.Fatal(err)
		}
	}
}
