package envs

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// tol is the tolerance for probabilities computed by a few float operations.
const tol = 1e-12

// checkColumns checks that every column m[.][col] sums to 1 and returns the
// row of each column's largest entry.
func checkColumns(t *testing.T, what string, m [][]float64) []int {
	t.Helper()
	if len(m) == 0 {
		t.Fatalf("%s has no rows", what)
	}
	argmax := make([]int, len(m[0]))
	for col := range m[0] {
		var sum float64
		for row := range m {
			if len(m[row]) != len(m[0]) {
				t.Fatalf("%s row %d has %d columns, want %d", what, row, len(m[row]), len(m[0]))
			}
			p := m[row][col]
			if p < 0 || p > 1 {
				t.Fatalf("%s[%d][%d] = %v is not a probability", what, row, col, p)
			}
			sum += p
			if p > m[argmax[col]][col] {
				argmax[col] = row
			}
		}
		if math.Abs(sum-1) > tol {
			t.Errorf("%s column %d sums to %v", what, col, sum)
		}
	}
	return argmax
}

func sumTo1(t *testing.T, what string, p []float64) {
	t.Helper()
	var sum float64
	for _, x := range p {
		sum += x
	}
	if math.Abs(sum-1) > tol {
		t.Errorf("%s sums to %v", what, sum)
	}
}

// TestMazeModelStructure checks every reference maze: columns are
// distributions and their mode is the true outcome.
func TestMazeModelStructure(t *testing.T) {
	for _, name := range []string{"1.maze", "2.maze", "5.maze", "6.maze", "7.maze", "8.maze", "13.maze", "15.maze"} {
		t.Run(name, func(t *testing.T) {
			m := loadTestMaze(t, name)
			mm, err := m.Model(DefaultNoise, DefaultPrefPrecision)
			if err != nil {
				t.Fatal(err)
			}
			ns, no := m.NumStates(), m.NumObservations()
			if len(mm.A) != no || len(mm.B) != 5 || len(mm.C) != no || len(mm.D) != ns ||
				len(mm.Actions) != 5 || len(mm.Observations) != no || len(mm.States) != ns {
				t.Fatalf("shapes: A %d, B %d, C %d, D %d, names %d/%d/%d",
					len(mm.A), len(mm.B), len(mm.C), len(mm.D), len(mm.Actions), len(mm.Observations), len(mm.States))
			}
			for s, o := range checkColumns(t, "A", mm.A) {
				if o != m.Observation(s) {
					t.Errorf("argmax A[.][%d] = %d, want %d", s, o, m.Observation(s))
				}
			}
			for u := range mm.B {
				if len(mm.B[u]) != ns {
					t.Fatalf("B[%d] has %d rows, want %d", u, len(mm.B[u]), ns)
				}
				for prev, next := range checkColumns(t, "B["+ActionNames[u]+"]", mm.B[u]) {
					if next != m.Next(prev, u) {
						t.Errorf("argmax B[%d][.][%d] = %d, want %d", u, prev, next, m.Next(prev, u))
					}
				}
			}
			sumTo1(t, "C", mm.C)
			sumTo1(t, "D", mm.D)
			for o := 1; o < no; o++ {
				if !(mm.C[o] < mm.C[o-1]) {
					t.Errorf("C[%d] = %v not below C[%d] = %v", o, mm.C[o], o-1, mm.C[o-1])
				}
			}
			r, c := m.CellOf(m.Start())
			if want := fmt.Sprintf("(%d,%d)", r, c); mm.States[m.Start()] != want {
				t.Errorf("States[Start] = %q, want %q", mm.States[m.Start()], want)
			}
		})
	}
}

// TestMazeModelValues checks the entries of the model of 5.maze by hand:
//
//	WWWWW
//	W..EW   states 0 (1,1), 1 (1,2), 2 (1,3) = E
//	WW.WW   state  3 (2,2)
//	W..SW   states 4 (3,1), 5 (3,2), 6 (3,3) = S
//	WWWWW
//
// 7 states, O = 5+5-5 = 5 observations. With noise 0.1 the true entry of a
// column is 0.9, the others 0.1/4 in A and 0.1/6 in B and D. C is
// softmax(3*[5,4,3,2,1]) = exp(-3o) / sum_k exp(-3k), the closed form after
// dividing by exp(15).
func TestMazeModelValues(t *testing.T) {
	m := loadTestMaze(t, "5.maze")
	mm, err := m.Model(0.1, 3)
	if err != nil {
		t.Fatal(err)
	}
	approx := cmpopts.EquateApprox(0, tol)
	offA, offS := 0.1/4, 0.1/6
	// Distances to E = (1,3): 2, 1, 0, 2, 4, 3, 2.
	wantObs := []int{2, 1, 0, 2, 4, 3, 2}
	for s, o := range wantObs {
		col := []float64{offA, offA, offA, offA, offA}
		col[o] = 0.9
		got := make([]float64, 5)
		for i := range got {
			got[i] = mm.A[i][s]
		}
		if diff := cmp.Diff(col, got, approx); diff != "" {
			t.Errorf("A[.][%d] mismatch (-want +got):\n%s", s, diff)
		}
	}
	// B[UP][.][5]: from (3,2) up to (2,2) = state 3.
	want := []float64{offS, offS, offS, 0.9, offS, offS, offS}
	got := make([]float64, 7)
	for i := range got {
		got[i] = mm.B[Up][i][5]
	}
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("B[UP][.][5] mismatch (-want +got):\n%s", diff)
	}
	// B[RIGHT][.][6]: S = (3,3) has a wall on its right, it stays.
	want = []float64{offS, offS, offS, offS, offS, offS, 0.9}
	for i := range got {
		got[i] = mm.B[Right][i][6]
	}
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("B[RIGHT][.][6] mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{offS, offS, offS, offS, offS, offS, 0.9}, mm.D, approx); diff != "" {
		t.Errorf("D mismatch (-want +got):\n%s", diff)
	}
	var z float64
	for k := range 5 {
		z += math.Exp(-3 * float64(k))
	}
	wantC := make([]float64, 5)
	for o := range wantC {
		wantC[o] = math.Exp(-3*float64(o)) / z
	}
	if diff := cmp.Diff(wantC, mm.C, approx); diff != "" {
		t.Errorf("C mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"d=0", "d=1", "d=2", "d=3", "d=4"}, mm.Observations); diff != "" {
		t.Errorf("Observations mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"(1,1)", "(1,2)", "(1,3)", "(2,2)", "(3,1)", "(3,2)", "(3,3)"}, mm.States); diff != "" {
		t.Errorf("States mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(ActionNames, mm.Actions); diff != "" {
		t.Errorf("Actions mismatch (-want +got):\n%s", diff)
	}
	mm.Actions[0] = "changed"
	if ActionNames[0] != "UP" {
		t.Error("Model shares its Actions with ActionNames")
	}
}

// TestMazeModelExtremes checks parameters at the edges of their ranges.
func TestMazeModelExtremes(t *testing.T) {
	m := loadTestMaze(t, "5.maze")
	// noise 0: the exact deterministic model.
	mm, err := m.Model(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for prev := range m.NumStates() {
		for next := range m.NumStates() {
			want := 0.0
			if next == m.Next(prev, Left) {
				want = 1
			}
			if mm.B[Left][next][prev] != want {
				t.Errorf("B[LEFT][%d][%d] = %v, want %v", next, prev, mm.B[Left][next][prev], want)
			}
		}
	}
	// Precision 0: uniform C.
	if diff := cmp.Diff([]float64{0.2, 0.2, 0.2, 0.2, 0.2}, mm.C, cmpopts.EquateApprox(0, tol)); diff != "" {
		t.Errorf("C mismatch (-want +got):\n%s", diff)
	}
	// Huge precisions must not overflow into NaN: all mass on distance 0
	// (or on the largest distance for a negative precision).
	for _, tt := range []struct {
		prec float64
		want []float64
	}{
		{math.MaxFloat64, []float64{1, 0, 0, 0, 0}},
		{-math.MaxFloat64, []float64{0, 0, 0, 0, 1}},
	} {
		mm, err := m.Model(0.1, tt.prec)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, mm.C); diff != "" {
			t.Errorf("precision %v: C mismatch (-want +got):\n%s", tt.prec, diff)
		}
	}
}

func TestMazeModelErrors(t *testing.T) {
	m := loadTestMaze(t, "5.maze")
	tests := []struct {
		noise, prec float64
		want        string
	}{
		{-0.1, 3, "envs: noise -0.1 out of range [0, 1)"},
		{1, 3, "envs: noise 1 out of range [0, 1)"},
		{math.NaN(), 3, "envs: noise NaN out of range [0, 1)"},
		{math.Inf(1), 3, "envs: noise +Inf out of range [0, 1)"},
		{0.1, math.NaN(), "envs: prefPrecision NaN is not finite"},
		{0.1, math.Inf(-1), "envs: prefPrecision -Inf is not finite"},
	}
	for _, tt := range tests {
		_, err := m.Model(tt.noise, tt.prec)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Model(%v, %v): error %v, want %q", tt.noise, tt.prec, err, tt.want)
		}
	}
	// A maze with more free cells than MaxModelStates (4,096): 67x67 has
	// 65*65 = 4225 interior cells. Model and POMDP refuse it alike.
	big := mustParse(t, openMaze(67))
	if _, err := big.Model(0.1, 3); err == nil || !strings.Contains(err.Error(), "4225 states") {
		t.Errorf("Model of a 4225-state maze: error %v, want one naming 4225 states", err)
	}
	if _, err := big.POMDP(0.1, 3); err == nil || !strings.Contains(err.Error(), "4225 states") {
		t.Errorf("POMDP of a 4225-state maze: error %v, want one naming 4225 states", err)
	}
}

// openMaze returns an n×n maze file with a free interior, S in the top
// left corner and E in the bottom right one: (n-2)² states.
func openMaze(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %d\n%s\n", n, n, strings.Repeat("W", n))
	for r := 1; r < n-1; r++ {
		row := []byte("W" + strings.Repeat(".", n-2) + "W")
		if r == 1 {
			row[1] = 'S'
		}
		if r == n-2 {
			row[n-2] = 'E'
		}
		b.Write(row)
		b.WriteByte('\n')
	}
	b.WriteString(strings.Repeat("W", n) + "\n")
	return b.String()
}

// TestMazePOMDPMatchesModel: Maze.POMDP, which fills the flat spec
// directly, gives the model of MazeModel.POMDP bit for bit (every entry of
// A, B, C, D and every name) on the reference mazes, an open maze, a
// one-cell maze and at the noise and precision extremes.
func TestMazePOMDPMatchesModel(t *testing.T) {
	mazes := map[string]*Maze{"open 12x12": mustParse(t, openMaze(12)), "one cell": mustParse(t, "3 4\nWWWW\nWSEW\nWWWW\n")}
	for _, name := range []string{"1.maze", "2.maze", "6.maze", "13.maze"} {
		mazes[name] = loadTestMaze(t, name)
	}
	for name, mz := range mazes {
		for _, np := range [][2]float64{{0.1, 3}, {0, 1}, {0.5, -2}, {0.999, 1e6}} {
			mm, err := mz.Model(np[0], np[1])
			if err != nil {
				t.Fatal(err)
			}
			want := mm.Spec()
			got, err := mz.POMDP(np[0], np[1])
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got.Spec()); diff != "" {
				t.Errorf("%s, noise %g, precision %g: POMDP differs from Model (-Model +POMDP):\n%s", name, np[0], np[1], diff)
			}
		}
	}
}

// TestMazeModelFlat checks FlatA and FlatB against the nested matrices
// element by element, with the index formulas of pomdp.Spec written out
// (A[o*ns+s] = A[o][s], B[(u*ns+next)*ns+prev] = B[u][next][prev]), on a
// maze model (22 states, 5 actions) and on the T-maze model, and that the
// results share no memory with the model.
func TestMazeModelFlat(t *testing.T) {
	maze, err := loadTestMaze(t, "1.maze").Model(DefaultNoise, DefaultPrefPrecision)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultTMazeConfig()
	tmaze, err := TMazeModel(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	for name, mm := range map[string]*MazeModel{"maze": maze, "tmaze": tmaze} {
		ns, no, nu := len(mm.D), len(mm.A), len(mm.B)
		a, b := mm.FlatA(), mm.FlatB()
		if len(a) != no*ns || len(b) != nu*ns*ns {
			t.Fatalf("%s: len(FlatA) %d, len(FlatB) %d; want %d, %d", name, len(a), len(b), no*ns, nu*ns*ns)
		}
		for o := range no {
			for s := range ns {
				if a[o*ns+s] != mm.A[o][s] {
					t.Fatalf("%s: FlatA[%d*%d+%d] = %v, A[%d][%d] = %v", name, o, ns, s, a[o*ns+s], o, s, mm.A[o][s])
				}
			}
		}
		for u := range nu {
			for next := range ns {
				for prev := range ns {
					if got := b[(u*ns+next)*ns+prev]; got != mm.B[u][next][prev] {
						t.Fatalf("%s: FlatB at (%d, %d, %d) = %v, B = %v", name, u, next, prev, got, mm.B[u][next][prev])
					}
				}
			}
		}
		a[0], b[0] = -1, -1
		if mm.A[0][0] == -1 || mm.B[0][0][0] == -1 {
			t.Errorf("%s: FlatA/FlatB share memory with the model", name)
		}
	}
	// A ragged model is concatenated as it is (the caller's validation,
	// pomdp.New, sees the wrong length).
	ragged := &MazeModel{A: [][]float64{{1, 0}, {0}}, B: [][][]float64{{{1}, {0, 1}}}}
	if got := ragged.FlatA(); len(got) != 3 {
		t.Errorf("ragged FlatA = %v, want the 3 entries concatenated", got)
	}
	if got := ragged.FlatB(); len(got) != 3 {
		t.Errorf("ragged FlatB = %v, want the 3 entries concatenated", got)
	}
}
