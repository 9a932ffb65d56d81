package envs

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseMaze checks that ParseMaze never panics and that every maze it
// accepts keeps the invariants of checkInvariants: one start and one exit,
// observations in [0, NumObservations()), transitions in range, and a
// String that parses back to the same maze.
func FuzzParseMaze(f *testing.F) {
	files, err := filepath.Glob(filepath.Join(mazeDir, "*.maze"))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("4 5\r\nWWWWW\r\nWS.EW\r\nW...W\r\n"))
	f.Add([]byte("3 4\nWWWW\nWSEW\nWWWW\n\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseMaze(bytes.NewReader(data))
		if err != nil {
			if m != nil {
				t.Fatal("ParseMaze returned a maze and an error")
			}
			return
		}
		checkInvariants(t, m)
		// Every action changes the distance to E by at most 1, so a path
		// is never shorter than the first observation.
		if n, err := m.ShortestPath(); err == nil && n < m.Observation(m.Start()) {
			t.Fatalf("ShortestPath %d below the distance %d", n, m.Observation(m.Start()))
		}
		if m.NumStates() <= 64 {
			mm, err := m.Model(DefaultNoise, DefaultPrefPrecision)
			if err != nil {
				t.Fatal(err)
			}
			if len(mm.A) != m.NumObservations() || len(mm.D) != m.NumStates() {
				t.Fatalf("model shapes A %d, D %d", len(mm.A), len(mm.D))
			}
		}
	})
}
