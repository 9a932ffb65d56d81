package btai_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/envs"
)

// geodesic returns the number of actions from every state of mz to the
// exit (breadth-first search backwards over the true moves), -1 where the
// exit cannot be reached.
func geodesic(mz *envs.Maze) []int {
	ns := mz.NumStates()
	d := make([]int, ns)
	for i := range d {
		d[i] = -1
	}
	d[mz.Exit()] = 0
	queue := []int{mz.Exit()}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for s := range ns {
			if d[s] >= 0 {
				continue
			}
			for u := range mz.NumActions() {
				if mz.Next(s, u) == x {
					d[s] = d[x] + 1
					queue = append(queue, s)
					break
				}
			}
		}
	}
	return d
}

// summedDistances returns V[h][x] = min_u [m(next(x, u)) + V[h-1][next(x,
// u)]] for h = 0..maxH: the least Manhattan distance m summed over h moves
// from state x (V[0] = 0).
func summedDistances(mz *envs.Maze, maxH int) [][]int {
	ns, nu := mz.NumStates(), mz.NumActions()
	V := make([][]int, maxH+1)
	V[0] = make([]int, ns)
	for h := 1; h <= maxH; h++ {
		V[h] = make([]int, ns)
		for x := range ns {
			best := -1
			for u := range nu {
				y := mz.Next(x, u)
				if v := mz.Observation(y) + V[h-1][y]; best < 0 || v < best {
					best = v
				}
			}
			V[h][x] = best
		}
	}
	return V
}

// horizonH measures how far ahead a planner that minimises the summed
// observed distance (the maze model's preferences) must look from the
// start for its first moves to follow a shortest path. For a state x and
// horizon h, V_h(x) = min_u [m(next(x, u)) + V_(h-1)(next(x, u))] is the
// least summed Manhattan distance m over h moves; H(x) is the least h from
// which on (up to maxH) every minimising first move lowers the geodesic
// distance. The maze's H is, over the shortest paths from S, the least of
// the worst H(x) along the path (a minimax over the shortest-path graph).
// It returns maxH+1 when some cell needs more than maxH.
func horizonH(mz *envs.Maze, maxH int) int {
	ns, nu := mz.NumStates(), mz.NumActions()
	geo := geodesic(mz)
	V := summedDistances(mz, maxH)
	// good(x, h): every minimising first move at horizon h lowers geo.
	good := func(x, h int) bool {
		for u := range nu {
			y := mz.Next(x, u)
			if mz.Observation(y)+V[h-1][y] == V[h][x] && geo[y] != geo[x]-1 {
				return false
			}
		}
		return true
	}
	hx := make([]int, ns)
	for x := range ns {
		if x == mz.Exit() || geo[x] < 0 {
			continue
		}
		hx[x] = maxH + 1
		for h := maxH; h >= 1 && good(x, h); h-- {
			hx[x] = h
		}
	}
	// Minimax over the shortest-path graph, from the exit outwards.
	val := make([]int, ns)
	order := make([][]int, ns+1)
	for x, g := range geo {
		if g >= 0 {
			order[g] = append(order[g], x)
		}
	}
	for g := 1; g <= ns; g++ {
		for _, x := range order[g] {
			best := -1
			for u := range nu {
				if y := mz.Next(x, u); geo[y] == g-1 && (best < 0 || val[y] < best) {
					best = val[y]
				}
			}
			val[x] = max(hx[x], best)
		}
	}
	return val[mz.Start()]
}

// rises returns the least and the most number of moves that raise the
// Manhattan distance to the exit along the shortest paths from S.
func rises(mz *envs.Maze) (lo, hi int) {
	ns, nu := mz.NumStates(), mz.NumActions()
	geo := geodesic(mz)
	mn, mx := make([]int, ns), make([]int, ns)
	order := make([][]int, ns+1)
	for x, g := range geo {
		if g >= 0 {
			order[g] = append(order[g], x)
		}
	}
	for g := 1; g <= ns; g++ {
		for _, x := range order[g] {
			mn[x], mx[x] = -1, -1
			for u := range nu {
				y := mz.Next(x, u)
				if geo[y] != g-1 {
					continue
				}
				r := 0
				if mz.Observation(y) > mz.Observation(x) {
					r = 1
				}
				if mn[x] < 0 || mn[y]+r < mn[x] {
					mn[x] = mn[y] + r
				}
				mx[x] = max(mx[x], mx[y]+r)
			}
		}
	}
	return mn[mz.Start()], mx[mz.Start()]
}

// randomMaze draws a rows × cols maze (border included) whose interior
// cells are walls with probability density, with S and E on two distinct
// free cells at Manhattan distance at least 4. It returns nil when the
// draw has no such pair or E cannot be reached from S.
func randomMaze(t testing.TB, rng *rand.Rand, rows, cols int, density float64) *envs.Maze {
	t.Helper()
	grid := make([][]byte, rows)
	var free [][2]int
	for r := range rows {
		grid[r] = []byte(strings.Repeat("W", cols))
		if r == 0 || r == rows-1 {
			continue
		}
		for c := 1; c < cols-1; c++ {
			if rng.Float64() >= density {
				grid[r][c] = '.'
				free = append(free, [2]int{r, c})
			}
		}
	}
	if len(free) < 8 {
		return nil
	}
	s := free[rng.IntN(len(free))]
	e := free[rng.IntN(len(free))]
	if abs(s[0]-e[0])+abs(s[1]-e[1]) < 4 {
		return nil
	}
	grid[s[0]][s[1]], grid[e[0]][e[1]] = 'S', 'E'
	var b strings.Builder
	b.WriteString(itoa(rows) + " " + itoa(cols) + "\n")
	for _, row := range grid {
		b.Write(row)
		b.WriteByte('\n')
	}
	mz, err := envs.ParseMaze(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mz.ShortestPath(); err != nil {
		return nil
	}
	return mz
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func itoa(x int) string {
	const digits = "0123456789"
	if x < 10 {
		return digits[x : x+1]
	}
	return itoa(x/10) + digits[x%10:x%10+1]
}

// TestHorizonShippedMazes checks horizonH against the values measured for
// the shipped mazes by an independent search over action sequences (the
// exploration notes of docs/btai.md): 13.maze 1, 1.maze 3, 5.maze 4,
// 2.maze 6, 6.maze 6.
func TestHorizonShippedMazes(t *testing.T) {
	for name, want := range map[string]int{"13.maze": 1, "1.maze": 3, "5.maze": 4, "2.maze": 6, "6.maze": 6} {
		mz, _ := mazeModel(t, name)
		lo, hi := rises(mz)
		if got := horizonH(mz, 60); got != want {
			t.Errorf("%s: H = %d, want %d", name, got, want)
		}
		t.Logf("%s: rises %d..%d", name, lo, hi)
	}
}

// greedyH measures the horizon a receding-horizon planner needs in mz:
// the least h (up to maxH) such that a planner that, at every cell it
// reaches, takes a move that minimises the summed Manhattan distance over
// the next h moves (any of them, ties included) only ever takes moves that
// lower the true distance to the exit, from S until E. Unlike horizonH,
// which follows the best shortest path, it follows every path the planner
// may take: a cell off the best path that attracts the planner counts.
// It returns maxH+1 when no h up to maxH suffices.
func greedyH(mz *envs.Maze, maxH int) int {
	nu := mz.NumActions()
	geo := geodesic(mz)
	V := summedDistances(mz, maxH)
next:
	for h := 1; h <= maxH; h++ {
		seen := map[int]bool{mz.Start(): true}
		queue := []int{mz.Start()}
		for len(queue) > 0 {
			x := queue[0]
			queue = queue[1:]
			if x == mz.Exit() {
				continue
			}
			for u := range nu {
				y := mz.Next(x, u)
				if mz.Observation(y)+V[h-1][y] != V[h][x] {
					continue
				}
				if geo[y] != geo[x]-1 {
					continue next
				}
				if !seen[y] {
					seen[y] = true
					queue = append(queue, y)
				}
			}
		}
		return h
	}
	return maxH + 1
}

// TestGreedyH: greedyH follows more routes than horizonH, so it is never
// smaller (on the reference mazes: 1.maze 4 against 3, 6.maze 8 against 6,
// the others equal); on a maze whose start offers
// two equally short first moves, one of which leads past a pocket at
// distance 2 below the exit's wall, greedyH sees the pocket and horizonH
// does not. Pocket: S at (5,8) may go LEFT along row 5 to (5,4), at
// distance 2 under the wall below E, or UP; summed distances over h moves
// from (5,7): LEFT (5,6), (5,5), (5,4), then staying: 4+3+2+2+2+..., UP
// (4,7), (3,7), (2,7), (2,6), (2,5), (3,5), E: 4+3+4+3+2+1+0+0+...; LEFT
// is lower up to h = 6 (15 against 17), they tie at h = 7 (17) and UP is
// lower from h = 8 (17 against 19), so the planner needs h >= 8 there.
func TestGreedyH(t *testing.T) {
	for _, name := range []string{"1.maze", "2.maze", "5.maze", "6.maze", "13.maze"} {
		mz, _ := mazeModel(t, name)
		g, h := greedyH(mz, 60), horizonH(mz, 60)
		t.Logf("%s: greedyH %d, horizonH %d", name, g, h)
		if g < h {
			t.Errorf("%s: greedyH %d < horizonH %d", name, g, h)
		}
	}
	mz, err := envs.ParseMaze(strings.NewReader("7 10\nWWWWWWWWWW\nW.......WW\nWW.W.....W\nWWWWE.W..W\nW...WW...W\nW.......SW\nWWWWWWWWWW\n"))
	if err != nil {
		t.Fatal(err)
	}
	if h := horizonH(mz, 60); h != 3 {
		t.Errorf("pocket maze: horizonH %d, want 3", h)
	}
	if g := greedyH(mz, 60); g < 8 {
		t.Errorf("pocket maze: greedyH %d, want >= 8", g)
	}
}
