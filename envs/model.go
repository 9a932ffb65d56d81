package envs

import (
	"fmt"
	"math"
	"strconv"

	"github.com/arbor-ai/arbor/pomdp"
)

// MazeModel is a discrete POMDP generative model in plain slices, laid out
// as the POMDP file of docs/formats.md (and tagged to marshal as one):
//
//	A[o][s]          = P(o_t = o | s_t = s)
//	B[u][next][prev] = P(s_t+1 = next | s_t = prev, u_t = u)
//	C[o]             target distribution over observations (sums to 1)
//	D[s]             prior over the initial state
//
// Every column A[.][s], B[u][.][prev] and D sums to 1. Actions,
// Observations and States name the indices. Maze.Model and TMazeModel
// return one; it shares no memory with the environment.
type MazeModel struct {
	A            [][]float64   `json:"A"`
	B            [][][]float64 `json:"B"`
	C            []float64     `json:"C"`
	D            []float64     `json:"D"`
	Actions      []string      `json:"actions"`
	Observations []string      `json:"observations"`
	States       []string      `json:"states"`
}

// MaxModelStates is the largest number of states for which Maze.Model
// and Maze.POMDP build the dense model: B alone holds 5*NumStates()^2
// numbers, 671 MB at 4,096 states (an open 64 × 64 maze), and an agent
// planning with it holds about two such tensors (docs/benchmarks.md,
// "BTAI at scale").
const MaxModelStates = 4096

// Default parameters of Maze.Model (docs/formats.md: --noise 0.1,
// --pref-precision 3).
const (
	DefaultNoise         = 0.1
	DefaultPrefPrecision = 3.0
)

// Model returns the agent's generative model of the maze (docs/formats.md,
// "Maze file"), a noisy copy of the true deterministic process:
//
//   - A: the true observation of each state (its distance to the exit)
//     gets 1-noise and each of the other NumObservations()-1 observations
//     noise/(NumObservations()-1);
//   - B: for each action and previous state, the true next state (Next)
//     gets 1-noise and each other state noise/(NumStates()-1);
//   - D: the start state gets 1-noise and each other state
//     noise/(NumStates()-1);
//   - C = softmax(prefPrecision * [O, O-1, ..., 1]) with O =
//     NumObservations(), so distance 0 (standing on E) is preferred most
//     when prefPrecision > 0.
//
// Observations are named "d=0", "d=1", ..., states "(row,col)" and actions
// as in ActionNames. noise must be in [0, 1) and prefPrecision finite; mazes
// with more than MaxModelStates states are refused.
func (m *Maze) Model(noise, prefPrecision float64) (*MazeModel, error) {
	if err := m.checkModel(noise, prefPrecision); err != nil {
		return nil, err
	}
	ns, no := m.NumStates(), m.NumObservations()
	mm := &MazeModel{
		A:            make([][]float64, no),
		B:            make([][][]float64, numMazeActions),
		C:            make([]float64, no),
		D:            smoothedOneHot(ns, m.start, noise),
		Actions:      append([]string(nil), ActionNames...),
		Observations: make([]string, no),
		States:       make([]string, ns),
	}
	for o := range no {
		mm.A[o] = make([]float64, ns)
		mm.Observations[o] = "d=" + strconv.Itoa(o)
	}
	for s := range ns {
		o := m.obs[s]
		if o < 0 || o >= no { // guarded by ParseMaze; never a silent wrong value
			return nil, fmt.Errorf("envs: observation %d of state %d out of range [0, %d)", o, s, no)
		}
		setColumn(mm.A, s, o, noise)
		r, c := m.CellOf(s)
		mm.States[s] = "(" + strconv.Itoa(r) + "," + strconv.Itoa(c) + ")"
	}
	for u := range numMazeActions {
		b := make([][]float64, ns)
		for next := range b {
			b[next] = make([]float64, ns)
		}
		for prev := range ns {
			setColumn(b, prev, m.next[prev*numMazeActions+u], noise)
		}
		mm.B[u] = b
	}
	preferences(mm.C, prefPrecision)
	return mm, nil
}

// smoothedOneHot returns a distribution over n outcomes with 1-noise on
// hot and noise/(n-1) on every other outcome (all of it on hot if n = 1).
func smoothedOneHot(n, hot int, noise float64) []float64 {
	p := make([]float64, n)
	if n == 1 {
		p[0] = 1
		return p
	}
	off := noise / float64(n-1)
	for i := range p {
		p[i] = off
	}
	p[hot] = 1 - noise
	return p
}

// setColumn fills column col of the matrix m (indexed m[row][col]) with the
// smoothed one-hot distribution on row hot.
func setColumn(m [][]float64, col, hot int, noise float64) {
	n := len(m)
	if n == 1 {
		m[0][col] = 1
		return
	}
	off := noise / float64(n-1)
	for row := range m {
		m[row][col] = off
	}
	m[hot][col] = 1 - noise
}

// softmaxInto writes softmax(logits) to dst; the largest logit must be
// finite.
func softmaxInto(dst, logits []float64) {
	top := math.Inf(-1)
	for _, l := range logits {
		top = math.Max(top, l)
	}
	var sum float64
	for i, l := range logits {
		dst[i] = math.Exp(l - top)
		sum += dst[i]
	}
	for i := range dst {
		dst[i] /= sum
	}
}

// FlatA returns A flattened row-major into a new slice, the layout of
// pomdp.Spec.A: FlatA()[o*NumStates+s] = A[o][s], with NumStates = len(D).
// Rows are concatenated as they are, so a ragged A gives a slice whose
// length is not len(A)*len(D) (pomdp.New reports that).
func (m *MazeModel) FlatA() []float64 {
	n := 0
	for _, row := range m.A {
		n += len(row)
	}
	out := make([]float64, 0, n)
	for _, row := range m.A {
		out = append(out, row...)
	}
	return out
}

// FlatB returns B flattened row-major into a new slice, the layout of
// pomdp.Spec.B: FlatB()[(u*NumStates+next)*NumStates+prev] = B[u][next][prev].
// Like FlatA it concatenates rows as they are.
func (m *MazeModel) FlatB() []float64 {
	n := 0
	for _, mat := range m.B {
		for _, row := range mat {
			n += len(row)
		}
	}
	out := make([]float64, 0, n)
	for _, mat := range m.B {
		for _, row := range mat {
			out = append(out, row...)
		}
	}
	return out
}

// Spec returns the model as a pomdp.Spec: A and B flattened (FlatA, FlatB),
// C, D and the names copied. pomdp.New validates it; POMDP does both.
func (m *MazeModel) Spec() pomdp.Spec {
	return pomdp.Spec{
		NumStates: len(m.D), NumObs: len(m.A), NumActions: len(m.B),
		A: m.FlatA(), B: m.FlatB(),
		C: append([]float64(nil), m.C...), D: append([]float64(nil), m.D...),
		Actions:      append([]string(nil), m.Actions...),
		Observations: append([]string(nil), m.Observations...),
		States:       append([]string(nil), m.States...),
	}
}

// POMDP returns the model as a validated *pomdp.Model, the form both
// agents take.
func (m *MazeModel) POMDP() (*pomdp.Model, error) { return pomdp.New(m.Spec()) }

// POMDP returns the agent's generative model of the maze (Model) as a
// validated *pomdp.Model. It fills the flat pomdp.Spec directly, without
// the nested slices of MazeModel (the same numbers: MazeModel.POMDP of
// Model gives an equal model), so that building a large maze's model
// does not hold its B in two forms at once.
func (m *Maze) POMDP(noise, prefPrecision float64) (*pomdp.Model, error) {
	sp, err := m.spec(noise, prefPrecision)
	if err != nil {
		return nil, err
	}
	return pomdp.New(sp)
}

// spec is Model in the flat form of pomdp.Spec.
func (m *Maze) spec(noise, prefPrecision float64) (pomdp.Spec, error) {
	if err := m.checkModel(noise, prefPrecision); err != nil {
		return pomdp.Spec{}, err
	}
	ns, no := m.NumStates(), m.NumObservations()
	sp := pomdp.Spec{
		NumStates: ns, NumObs: no, NumActions: numMazeActions,
		A:            make([]float64, no*ns),
		B:            make([]float64, numMazeActions*ns*ns),
		C:            make([]float64, no),
		D:            smoothedOneHot(ns, m.start, noise),
		Actions:      append([]string(nil), ActionNames...),
		Observations: make([]string, no),
		States:       make([]string, ns),
	}
	for o := range no {
		sp.Observations[o] = "d=" + strconv.Itoa(o)
	}
	// Every column is noise/(rows-1) but for 1-noise on its hot row, as
	// setColumn writes it.
	fill := func(x []float64, rows int) {
		off := 1.0
		if rows > 1 {
			off = noise / float64(rows-1)
		}
		for i := range x {
			x[i] = off
		}
	}
	hot := 1 - noise
	if no == 1 {
		hot = 1
	}
	fill(sp.A, no)
	for s := range ns {
		o := m.obs[s]
		if o < 0 || o >= no { // guarded by ParseMaze; never a silent wrong value
			return pomdp.Spec{}, fmt.Errorf("envs: observation %d of state %d out of range [0, %d)", o, s, no)
		}
		sp.A[o*ns+s] = hot
		r, c := m.CellOf(s)
		sp.States[s] = "(" + strconv.Itoa(r) + "," + strconv.Itoa(c) + ")"
	}
	hot = 1 - noise
	if ns == 1 {
		hot = 1
	}
	for u := range numMazeActions {
		blk := sp.B[u*ns*ns : (u+1)*ns*ns]
		fill(blk, ns)
		for prev := range ns {
			blk[m.next[prev*numMazeActions+u]*ns+prev] = hot
		}
	}
	preferences(sp.C, prefPrecision)
	return sp, nil
}

// checkModel returns the error of Model for its arguments, nil if it can
// build the model.
func (m *Maze) checkModel(noise, prefPrecision float64) error {
	if m.cellOf == nil {
		return errZeroMaze
	}
	if !(noise >= 0 && noise < 1) { // also rejects NaN
		return fmt.Errorf("envs: noise %v out of range [0, 1)", noise)
	}
	if math.IsNaN(prefPrecision) || math.IsInf(prefPrecision, 0) {
		return fmt.Errorf("envs: prefPrecision %v is not finite", prefPrecision)
	}
	if ns := m.NumStates(); ns > MaxModelStates {
		return fmt.Errorf("envs: maze has %d states, more than the %d a dense model allows", ns, MaxModelStates)
	}
	return nil
}

// preferences sets C = softmax(prefPrecision * (O - o)) over the O =
// len(dst) observations. Shifting the logits by their maximum keeps every
// exponent <= 0 even for huge precisions.
func preferences(dst []float64, prefPrecision float64) {
	no := len(dst)
	top := 0 // o with the largest logit
	if prefPrecision < 0 {
		top = no - 1
	}
	logits := make([]float64, no)
	for o := range no {
		logits[o] = prefPrecision * float64(top-o)
	}
	softmaxInto(dst, logits)
}
