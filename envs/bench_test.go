package envs

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkMazeStep(b *testing.B) {
	m := loadTestMaze(b, "7.maze")
	m.Reset()
	u := 0
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Step(u); err != nil {
			b.Fatal(err)
		}
		u = (u + 1) % numMazeActions
	}
}

func BenchmarkParseMaze(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(mazeDir, "7.maze"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseMaze(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMazeModel(b *testing.B) {
	m := loadTestMaze(b, "7.maze")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Model(DefaultNoise, DefaultPrefPrecision); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTMazeStep(b *testing.B) {
	tm, err := NewTMaze(nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		tm.Reset()
		if _, err := tm.Step(TMazeCue); err != nil {
			b.Fatal(err)
		}
	}
}
