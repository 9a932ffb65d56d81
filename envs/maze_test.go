package envs

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/arbor-ai/arbor/agent"
)

// mazeDir holds the reference mazes (examples/mazes holds the same files).
const mazeDir = "testdata/mazes"

func loadTestMaze(t testing.TB, name string) *Maze {
	t.Helper()
	m, err := LoadMaze(filepath.Join(mazeDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustParse(t testing.TB, text string) *Maze {
	t.Helper()
	m, err := ParseMaze(strings.NewReader(text))
	if err != nil {
		t.Fatalf("ParseMaze(%q): %v", text, err)
	}
	return m
}

// TestReferenceMazes loads every reference maze. The shortest paths come
// with the reference mazes (computed independently of arbor); 0, 3 and
// 4.maze are invalid on purpose.
func TestReferenceMazes(t *testing.T) {
	tests := []struct {
		file     string
		shortest int
		// For the invalid files: the whole error and the position.
		err          string
		line, column int
	}{
		{file: "0.maze", err: "testdata/mazes/0.maze: no exit E in the rows (lines 2-4)"},
		{file: "1.maze", shortest: 9},
		{file: "2.maze", shortest: 9},
		{file: "3.maze", err: "testdata/mazes/3.maze: line 2, column 9: row longer than 8 columns", line: 2, column: 9},
		{file: "4.maze", err: "testdata/mazes/4.maze: line 2, column 1: invalid character 'I' (want W, ., S or E)", line: 2, column: 1},
		{file: "5.maze", shortest: 4},
		{file: "6.maze", shortest: 11},
		{file: "7.maze", shortest: 34},
		{file: "8.maze", shortest: 30},
		{file: "13.maze", shortest: 14},
		{file: "15.maze", shortest: 16},
	}
	files, err := filepath.Glob(filepath.Join(mazeDir, "*.maze"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(tests) {
		t.Errorf("%d maze files in %s, %d in the table", len(files), mazeDir, len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			m, err := LoadMaze(filepath.Join(mazeDir, tt.file))
			if tt.err != "" {
				if err == nil {
					t.Fatalf("LoadMaze succeeded, want error %q", tt.err)
				}
				if err.Error() != tt.err {
					t.Errorf("error %q, want %q", err, tt.err)
				}
				var pe *ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("error %T is not a *ParseError", err)
				}
				if pe.Line != tt.line || pe.Column != tt.column {
					t.Errorf("position line %d, column %d, want line %d, column %d", pe.Line, pe.Column, tt.line, tt.column)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.ShortestPath()
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.shortest {
				t.Errorf("ShortestPath = %d, want %d", got, tt.shortest)
			}
			checkInvariants(t, m)
		})
	}
}

// checkInvariants checks what every parsed maze guarantees.
func checkInvariants(t testing.TB, m *Maze) {
	t.Helper()
	var starts, exits int
	for r := range m.Rows() {
		for c := range m.Cols() {
			s, ok := m.StateOf(r, c)
			if !ok {
				continue
			}
			if r2, c2 := m.CellOf(s); r2 != r || c2 != c {
				t.Fatalf("CellOf(StateOf(%d, %d)) = (%d, %d)", r, c, r2, c2)
			}
			if s == m.Start() {
				starts++
			}
			if s == m.Exit() {
				exits++
			}
		}
	}
	if starts != 1 || exits != 1 {
		t.Fatalf("%d starts and %d exits, want one of each", starts, exits)
	}
	if m.Start() == m.Exit() {
		t.Fatalf("start and exit are the same state %d", m.Start())
	}
	if got := strings.Count(m.String(), "S"); got != 1 {
		t.Fatalf("String has %d S, want 1", got)
	}
	for s := range m.NumStates() {
		if o := m.Observation(s); o < 0 || o >= m.NumObservations() {
			t.Fatalf("Observation(%d) = %d, out of range [0, %d)", s, o, m.NumObservations())
		}
		for u := range m.NumActions() {
			if n := m.Next(s, u); n < 0 || n >= m.NumStates() {
				t.Fatalf("Next(%d, %d) = %d, out of range [0, %d)", s, u, n, m.NumStates())
			}
		}
	}
	if m.Observation(m.Exit()) != 0 {
		t.Fatalf("Observation(Exit) = %d, want 0", m.Observation(m.Exit()))
	}
	again, err := ParseMaze(strings.NewReader(m.String()))
	if err != nil {
		t.Fatalf("String does not parse back: %v\n%s", err, m.String())
	}
	if again.String() != m.String() {
		t.Fatalf("round trip changed the maze:\n%s\nto\n%s", m.String(), again.String())
	}
}

// TestMazeIndexing checks 1.maze by hand:
//
//	   01234567
//	0  WWWWWWWW
//	1  W.....EW   states 0-5 (E = 5)
//	2  W.WWWW.W   states 6, 7
//	3  W....W.W   states 8-12
//	4  W.WW.W.W   states 13-15
//	5  WS.....W   states 16-21 (S = 16)
//	6  WWWWWWWW
func TestMazeIndexing(t *testing.T) {
	m := loadTestMaze(t, "1.maze")
	if m.Rows() != 7 || m.Cols() != 8 {
		t.Errorf("size %dx%d, want 7x8", m.Rows(), m.Cols())
	}
	if m.NumStates() != 22 || m.Start() != 16 || m.Exit() != 5 {
		t.Errorf("NumStates %d, Start %d, Exit %d; want 22, 16, 5", m.NumStates(), m.Start(), m.Exit())
	}
	// rows + cols - 5 = 7 + 8 - 5.
	if m.NumObservations() != 10 || m.NumActions() != 5 {
		t.Errorf("NumObservations %d, NumActions %d; want 10, 5", m.NumObservations(), m.NumActions())
	}
	for _, tt := range []struct{ r, c, s int }{{1, 1, 0}, {1, 6, 5}, {2, 1, 6}, {2, 6, 7}, {3, 4, 11}, {3, 6, 12}, {4, 6, 15}, {5, 1, 16}, {5, 6, 21}} {
		if s, ok := m.StateOf(tt.r, tt.c); !ok || s != tt.s {
			t.Errorf("StateOf(%d, %d) = %d, %v; want %d, true", tt.r, tt.c, s, ok, tt.s)
		}
	}
	for _, rc := range [][2]int{{0, 0}, {2, 2}, {-1, 3}, {3, 8}, {7, 1}, {1, -1}} {
		if s, ok := m.StateOf(rc[0], rc[1]); ok || s != -1 {
			t.Errorf("StateOf(%d, %d) = %d, %v; want -1, false", rc[0], rc[1], s, ok)
		}
	}
}

// TestMazeObservation checks Manhattan distances to E = (1, 6) in 1.maze,
// computed by hand as |r-1| + |c-6|.
func TestMazeObservation(t *testing.T) {
	m := loadTestMaze(t, "1.maze")
	for _, tt := range []struct{ r, c, want int }{
		{1, 6, 0}, {1, 5, 1}, {2, 6, 1}, {1, 1, 5}, {3, 4, 4}, {4, 1, 8},
		{5, 1, 9}, // S: the largest distance, (7-3)+(8-3) = NumObservations-1
		{5, 6, 4}, // below E but far by path: the distance ignores walls
	} {
		s, ok := m.StateOf(tt.r, tt.c)
		if !ok {
			t.Fatalf("(%d, %d) is a wall", tt.r, tt.c)
		}
		if got := m.Observation(s); got != tt.want {
			t.Errorf("Observation(%d, %d) = %d, want %d", tt.r, tt.c, got, tt.want)
		}
	}
	// 13.maze is a corridor: S at (1,1), E at (1,15); O = 3+17-5 = 15.
	m = loadTestMaze(t, "13.maze")
	if got := m.Observation(m.Start()); got != 14 || m.NumObservations() != 15 {
		t.Errorf("13.maze: Observation(Start) = %d, NumObservations = %d; want 14, 15", got, m.NumObservations())
	}
}

// TestMazeNext checks moves into walls and free cells in 1.maze by hand.
func TestMazeNext(t *testing.T) {
	m := loadTestMaze(t, "1.maze")
	st := func(r, c int) int {
		s, ok := m.StateOf(r, c)
		if !ok {
			t.Fatalf("(%d, %d) is a wall", r, c)
		}
		return s
	}
	tests := []struct {
		from   [2]int
		action int
		to     [2]int
	}{
		{[2]int{5, 1}, Up, [2]int{4, 1}},
		{[2]int{5, 1}, Down, [2]int{5, 1}}, // bottom border wall
		{[2]int{5, 1}, Left, [2]int{5, 1}}, // left border wall
		{[2]int{5, 1}, Right, [2]int{5, 2}},
		{[2]int{5, 1}, Idle, [2]int{5, 1}},
		{[2]int{4, 4}, Left, [2]int{4, 4}}, // interior wall at (4,3)
		{[2]int{4, 4}, Right, [2]int{4, 4}},
		{[2]int{4, 4}, Up, [2]int{3, 4}},
		{[2]int{4, 4}, Down, [2]int{5, 4}},
		{[2]int{1, 6}, Right, [2]int{1, 6}},
		{[2]int{1, 6}, Down, [2]int{2, 6}},
		{[2]int{1, 6}, Up, [2]int{1, 6}},
		{[2]int{2, 1}, Right, [2]int{2, 1}},
	}
	for _, tt := range tests {
		got := m.Next(st(tt.from[0], tt.from[1]), tt.action)
		if want := st(tt.to[0], tt.to[1]); got != want {
			r, c := m.CellOf(got)
			t.Errorf("Next(%v, %s) = (%d, %d), want %v", tt.from, ActionNames[tt.action], r, c, tt.to)
		}
	}
}

// TestMazeEpisode walks the 9-action shortest path of 1.maze (4 up, 5
// right) through the agent.Environment interface.
func TestMazeEpisode(t *testing.T) {
	m := loadTestMaze(t, "1.maze")
	var env agent.Environment = m
	if o := env.Reset(); o != 9 {
		t.Errorf("Reset = %d, want 9 (distance from (5,1) to (1,6))", o)
	}
	if _, err := env.Step(5); err == nil {
		t.Error("Step(5) succeeded, want an error")
	}
	if _, err := env.Step(-1); err == nil {
		t.Error("Step(-1) succeeded, want an error")
	}
	if m.State() != m.Start() {
		t.Errorf("an invalid Step moved the agent to %d", m.State())
	}
	actions := []int{Up, Up, Up, Up, Right, Right, Right, Right, Right}
	// Distances along the path: (4,1)=8, (3,1)=7, (2,1)=6, (1,1)=5, then 4..0.
	wantObs := []int{8, 7, 6, 5, 4, 3, 2, 1, 0}
	path := []int{m.State()}
	for i, u := range actions {
		if env.Done() {
			t.Fatalf("Done before step %d", i)
		}
		o, err := env.Step(u)
		if err != nil {
			t.Fatal(err)
		}
		if o != wantObs[i] {
			t.Errorf("step %d: observation %d, want %d", i, o, wantObs[i])
		}
		path = append(path, m.State())
	}
	if !env.Done() {
		r, c := m.Position()
		t.Fatalf("not Done at (%d, %d)", r, c)
	}
	if r, c := m.Position(); r != 1 || c != 6 {
		t.Errorf("Position = (%d, %d), want (1, 6)", r, c)
	}
	want := "" +
		"WWWWWWWW\n" +
		"W*****EW\n" +
		"W*WWWW.W\n" +
		"W*...W.W\n" +
		"W*WW.W.W\n" +
		"WS.....W\n" +
		"WWWWWWWW\n"
	if diff := cmp.Diff(want, m.Render(append(path, -1, 99))); diff != "" {
		t.Errorf("Render mismatch (-want +got):\n%s", diff)
	}
	env.Reset()
	if m.State() != m.Start() || env.Done() {
		t.Errorf("Reset: state %d, Done %v", m.State(), env.Done())
	}
}

func TestShortestPathUnreachable(t *testing.T) {
	m := mustParse(t, "3 5\nWWWWW\nWSWEW\nWWWWW\n")
	if n, err := m.ShortestPath(); err == nil {
		t.Errorf("ShortestPath = %d, want an error", n)
	}
}

// TestParseMazeAccepts checks the lenient parts of the format.
func TestParseMazeAccepts(t *testing.T) {
	const canonical = "4 5\nWWWWW\nWS.EW\nW...W\nWWWWW\n"
	tests := []struct{ name, text string }{
		{"canonical", canonical},
		{"crlf", "4 5\r\nWWWWW\r\nWS.EW\r\nW...W\r\nWWWWW\r\n"},
		{"no final newline", "4 5\nWWWWW\nWS.EW\nW...W\nWWWWW"},
		{"trailing blank lines", canonical + "\n\n  \r\n\t\n"},
		{"short rows padded", "4 5\nWWWWW\nWS.EW\nW...W\n\n"},
		{"header spacing", " 4\t 5 \nWWWWW\nWS.EW\nW...W\nWWWWW\n"},
		{"crlf without final newline", "4 5\r\nWWWWW\r\nWS.EW\r\nW...W\r\nWWWWW"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mustParse(t, tt.text)
			if diff := cmp.Diff(canonical, m.String()); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
			checkInvariants(t, m)
		})
	}
}

// TestParseMazeErrors checks every kind of fault and where it is reported.
func TestParseMazeErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"empty file", "", `line 1: missing header "rows cols"`},
		{"one number", "5\n", `line 1: header must be "rows cols", got "5"`},
		{"three numbers", "5 5 5\n", `line 1: header must be "rows cols", got "5 5 5"`},
		{"blank header", "\nWWW\n", `line 1: header must be "rows cols", got ""`},
		{"rows not integer", "x 5\n", `line 1, column 1: rows "x" is not an integer`},
		{"cols not integer", "5 5.0\n", `line 1, column 3: cols "5.0" is not an integer`},
		{"cols not integer after spaces", "5   abc\n", `line 1, column 5: cols "abc" is not an integer`},
		{"rows zero", "0 5\n", "line 1, column 1: rows 0 out of range [3, 1000]"},
		{"rows negative", "-4 5\n", "line 1, column 1: rows -4 out of range [3, 1000]"},
		{"cols too small", "5 2\n", "line 1, column 3: cols 2 out of range [3, 1000]"},
		{"rows absurd", "1001 5\n", "line 1, column 1: rows 1001 out of range [3, 1000]"},
		{"cols overflow", "5 99999999999999999999999\n", "line 1, column 3: cols 99999999999999999999999 out of range [3, 1000]"},
		{"row too long", "4 5\nWWWWW\nWS.EWW\nW...W\nWWWWW\n", "line 3, column 6: row longer than 5 columns"},
		{"trailing space", "4 5\nWWWWW\nWS.EW \nW...W\nWWWWW\n", "line 3, column 6: row longer than 5 columns"},
		{"invalid character", "4 5\nWWWWW\nWS.EW\nW.x.W\nWWWWW\n", `line 4, column 3: invalid character 'x' (want W, ., S or E)`},
		{"lower-case wall", "4 5\nWWWWW\nwS.EW\nW...W\nWWWWW\n", `line 3, column 1: invalid character 'w' (want W, ., S or E)`},
		{"space inside", "4 5\nWWWWW\nWS EW\nW...W\nWWWWW\n", `line 3, column 3: invalid character ' ' (want W, ., S or E)`},
		{"non-ascii", "4 5\nWWWWW\nWSé.W\nW.E.W\nWWWWW\n", `line 3, column 3: invalid character 'é' (want W, ., S or E)`},
		{"free cell on border", "4 5\nWW.WW\nWS.EW\nW...W\nWWWWW\n", `line 2, column 3: '.' on the border: the maze must be enclosed by walls`},
		{"exit on border", "4 5\nWWWWW\nWS..E\nW...W\nWWWWW\n", `line 3, column 5: 'E' on the border: the maze must be enclosed by walls`},
		{"start on bottom border", "4 5\nWWWWW\nW..EW\nW...W\nWSWWW\n", `line 5, column 2: 'S' on the border: the maze must be enclosed by walls`},
		{"second start", "4 5\nWWWWW\nWS.EW\nW.S.W\nWWWWW\n", "line 4, column 3: second start S (the first is at line 3, column 2)"},
		{"second exit", "4 5\nWWWWW\nWS.EW\nWE..W\nWWWWW\n", "line 4, column 2: second exit E (the first is at line 3, column 4)"},
		{"no start", "4 5\nWWWWW\nW..EW\nW...W\nWWWWW\n", "no start S in the rows (lines 2-5)"},
		{"no exit", "4 5\nWWWWW\nWS..W\nW...W\nWWWWW\n", "no exit E in the rows (lines 2-5)"},
		{"missing rows", "4 5\nWWWWW\nWS.EW\n", "line 4: missing row 3 of 4 (the file ends after line 3)"},
		{"missing all rows", "4 5", "line 2: missing row 1 of 4 (the file ends after line 1)"},
		{"extra line", "4 5\nWWWWW\nWS.EW\nW...W\nWWWWW\nWWWWW\n", "line 6: extra line after the 4 rows declared on line 1"},
		{"extra line after blank", "4 5\nWWWWW\nWS.EW\nW...W\nWWWWW\n\nW\n", "line 7: extra line after the 4 rows declared on line 1"},
		{"line too long", "4 5\n" + strings.Repeat("W", maxLineBytes+1) + "\n", "line 2: line longer than 65536 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseMaze(strings.NewReader(tt.text))
			if err == nil {
				t.Fatalf("ParseMaze succeeded, want %q\n%s", tt.want, m)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got %q\nwant %q", err, tt.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Errorf("error %T is not a *ParseError", err)
			}
		})
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestParseMazeReadError(t *testing.T) {
	_, err := ParseMaze(failingReader{})
	if err == nil || err.Error() != "line 1: disk on fire" {
		t.Errorf("error %v, want %q", err, "line 1: disk on fire")
	}
}

func TestLoadMazeMissingFile(t *testing.T) {
	if _, err := LoadMaze(filepath.Join(mazeDir, "nope.maze")); err == nil {
		t.Error("LoadMaze of a missing file succeeded")
	}
}

// TestMazePanics checks the documented panics on programmer errors.
func TestMazePanics(t *testing.T) {
	m := loadTestMaze(t, "5.maze")
	for name, f := range map[string]func(){
		"Next state":  func() { m.Next(m.NumStates(), Up) },
		"Next action": func() { m.Next(0, 5) },
		"Observation": func() { m.Observation(-1) },
		"CellOf":      func() { m.CellOf(7) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
}
