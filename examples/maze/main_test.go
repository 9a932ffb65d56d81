package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// runMaze runs the program in-process.
func runMaze(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// readGrid reads a maze file's rows, padding short rows
// with walls, without package envs.
func readGrid(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	var rows, cols int
	if _, err := fmt.Sscan(lines[0], &rows, &cols); err != nil {
		t.Fatal(err)
	}
	grid := lines[1 : 1+rows]
	for i := range grid {
		grid[i] += strings.Repeat("W", cols-len(grid[i]))
	}
	return grid
}

var cell = regexp.MustCompile(`\((\d+),(\d+)\)`)

// checkWalk checks the printed run against the maze: the path starts on S,
// every step moves to a 4-neighbour or stays (a move into a wall stays),
// never onto a wall, the action names match the moves, "reached the exit"
// means the path ends on E, and the drawn maze marks exactly the visited
// free cells. It returns whether the exit was reached.
func checkWalk(t *testing.T, grid []string, out string) bool {
	t.Helper()
	lines := strings.Split(out, "\n")
	if len(lines) < 3+len(grid) {
		t.Fatalf("output too short:\n%s", out)
	}
	reached := strings.Contains(lines[0], "reached the exit in") && !strings.Contains(lines[0], "did not")
	actions := strings.Fields(strings.TrimPrefix(lines[1], "actions: "))
	if !strings.HasPrefix(lines[2], "path: ") {
		t.Fatalf("no path line in:\n%s", out)
	}
	var path [][2]int
	for _, m := range cell.FindAllStringSubmatch(lines[2], -1) {
		r, _ := strconv.Atoi(m[1])
		c, _ := strconv.Atoi(m[2])
		path = append(path, [2]int{r, c})
	}
	if len(path) != len(actions)+1 {
		t.Fatalf("%d positions for %d actions", len(path), len(actions))
	}
	if grid[path[0][0]][path[0][1]] != 'S' {
		t.Fatalf("path starts at %v, not on S", path[0])
	}
	delta := map[string][2]int{"UP": {-1, 0}, "DOWN": {1, 0}, "LEFT": {0, -1}, "RIGHT": {0, 1}, "IDLE": {0, 0}}
	visited := map[[2]int]bool{}
	for i, a := range actions {
		d, ok := delta[a]
		if !ok {
			t.Fatalf("unknown action %q", a)
		}
		p, q := path[i], [2]int{path[i][0] + d[0], path[i][1] + d[1]}
		if grid[q[0]][q[1]] == 'W' {
			q = p
		}
		if path[i+1] != q {
			t.Fatalf("step %d: %s from %v leads to %v, printed %v", i+1, a, p, q, path[i+1])
		}
		visited[q] = true
	}
	last := path[len(path)-1]
	if reached != (grid[last[0]][last[1]] == 'E') {
		t.Fatalf("outcome %q but the path ends at %v (%c)", lines[0], last, grid[last[0]][last[1]])
	}
	for r, row := range grid {
		want := []byte(row)
		for c := range want {
			if want[c] == '.' && visited[[2]int{r, c}] {
				want[c] = '*'
			}
		}
		if lines[3+r] != string(want) {
			t.Fatalf("maze row %d drawn %q, want %q", r, lines[3+r], want)
		}
	}
	return reached
}

// TestMazePredictiveSolves runs the example on 5.maze (shortest path 4,
// by breadth-first search over the file) at its defaults but for predictive
// inference, whose future posteriors are exact predictions, so that the
// check does not depend on the vmp mode (the btai package's tests own the
// success rates); 13 = 2 x 4 + 5 is the step bound of those tables.
// (Measured with the paper's settings: with 50 iterations or fewer the
// agent keeps pressing UP into the wall above S, which keeps the observed
// distance at 2, rather than go LEFT, which raises it to 3 before the way
// round brings it down.)
func TestMazePredictiveSolves(t *testing.T) {
	file := filepath.Join("..", "mazes", "5.maze")
	for _, seed := range []string{"1", "2", "3"} {
		code, out, errs := runMaze(t, "-maze", file, "-inference", "predictive", "-steps", "13", "-seed", seed)
		if code != 0 || errs != "" {
			t.Fatalf("seed %s: exit %d, stderr %q", seed, code, errs)
		}
		if !checkWalk(t, readGrid(t, file), out) {
			t.Errorf("seed %s: exit not reached in 13 steps:\n%s", seed, out)
		}
	}
}

// TestMazeDeterministic: with the default vmp inference on 1.maze, the
// printed walk is consistent with the maze and the same seed prints the
// same run.
func TestMazeDeterministic(t *testing.T) {
	file := filepath.Join("..", "mazes", "1.maze")
	args := []string{"-maze", file, "-iterations", "20", "-steps", "15", "-seed", "9"}
	code, first, errs := runMaze(t, args...)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	checkWalk(t, readGrid(t, file), first)
	if _, second, _ := runMaze(t, args...); second != first {
		t.Errorf("same seed, different runs:\n%s\n---\n%s", first, second)
	}
}

// TestMazeBadInput: bad files and flags give exit status 2 and one line.
func TestMazeBadInput(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-maze", filepath.Join("..", "mazes", "0.maze")}, "no exit E"},
		{[]string{"-maze", filepath.Join("..", "mazes", "4.maze")}, "invalid character"},
		{[]string{"-maze", filepath.Join(t.TempDir(), "none.maze")}, "no such file"},
		{[]string{"-inference", "exact"}, "-inference"},
		{[]string{"-steps", "0"}, "-steps 0"},
		{[]string{"-iterations", "0"}, "-iterations 0"},
		{[]string{"extra"}, "unexpected argument"},
	}
	for _, c := range cases {
		code, out, errs := runMaze(t, c.args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, nothing, one line with %q", c.args, code, out, errs, c.want)
		}
	}
}

// TestMazeDefaultsSolve1: at its defaults (the default preset) the example
// solves 1.maze on the shortest path (9 actions, examples/mazes/1.maze),
// for three seeds; with -preset paper it does not (the paper's settings
// go into the pocket at (3,4), as the btai package's recorded runs show).
func TestMazeDefaultsSolve1(t *testing.T) {
	file := filepath.Join("..", "mazes", "1.maze")
	for _, seed := range []string{"0", "1", "2"} {
		code, out, errs := runMaze(t, "-maze", file, "-seed", seed)
		if code != 0 || errs != "" {
			t.Fatalf("seed %s: exit %d, stderr %q", seed, code, errs)
		}
		if !checkWalk(t, readGrid(t, file), out) || !strings.Contains(out, "reached the exit in 9 steps") {
			t.Errorf("seed %s: want the exit in 9 steps:\n%s", seed, out)
		}
	}
	_, out, _ := runMaze(t, "-maze", file, "-preset", "paper", "-steps", "23", "-seed", "0")
	if checkWalk(t, readGrid(t, file), out) {
		t.Errorf("-preset paper solved 1.maze, expected the pocket:\n%s", out)
	}
}
