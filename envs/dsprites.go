package envs

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/pomdp"
)

var _ agent.Environment = (*DSprites)(nil)

// The dSprites task of the BTAI_3MF paper (Champion et al., "Multimodal
// and multifactor branching time active inference", Neural Computation
// 36(11), 2024; docs/btai.md, "dSprites"): a sprite of some shape, scale
// and orientation at a pixel (x, y) of a 32 × 32 image is moved by the
// agent until it crosses the bottom edge; squares belong at the left,
// ellipses and hearts at the right. The agent observes the latent values
// (no images), x and y in bins of Granularity pixels.

// dSprites actions, in the order of their indices.
const (
	DSpritesDown  = 0
	DSpritesUp    = 1
	DSpritesLeft  = 2
	DSpritesRight = 3
)

// Sizes of the dSprites task.
const (
	DSpritesShapes       = 3
	DSpritesScales       = 6
	DSpritesOrientations = 40
	DSpritesPixels       = 32 // x in [0, 31]; y in [0, 32], 32 being below the image
	DSpritesMaxActions   = 50 // a trial ends after 50 actions, with reward -1
	DSpritesMove         = 8  // pixels per action (repeated one-pixel steps)
	DSpritesNoise        = 0.001
)

// Names of the dSprites actions and shapes. Treat them as read-only.
var (
	DSpritesActionNames = []string{"down", "up", "left", "right"}
	DSpritesShapeNames  = []string{"square", "ellipse", "heart"}
)

// DSpritesState is the latent state of the sprite: indices of its shape
// (0 square, 1 ellipse, 2 heart), scale and orientation, and its position
// in pixels (Y = 32: below the image).
type DSpritesState struct {
	Shape       int `json:"shape"`
	Scale       int `json:"scale"`
	Orientation int `json:"orientation"`
	X           int `json:"x"`
	Y           int `json:"y"`
}

// CheckGranularity returns an error unless g divides 32 (1, 2, 4, 8, 16 or
// 32; the paper uses 1, 2, 4 and 8).
func CheckGranularity(g int) error {
	if g < 1 || g > DSpritesPixels || DSpritesPixels%g != 0 {
		return fmt.Errorf("granularity %d: want a divisor of 32 (1, 2, 4, 8, 16 or 32)", g)
	}
	return nil
}

// DSprites is the dSprites environment at one granularity. It implements
// agent.Environment: Reset draws the shape, scale, orientation, x and y
// uniformly (y among the 32 rows of the image), Step moves the sprite 8
// pixels, Done reports that it crossed the bottom or that 50 actions were
// taken. The observation is one outcome per modality, in the order shape,
// scale, orientation, x, y (DSpritesModel's), x and y in bins of
// Granularity pixels. Not safe for concurrent use.
type DSprites struct {
	g      int
	rng    *rand.Rand
	init   DSpritesState
	st     DSpritesState
	steps  int
	done   bool
	reward float64
}

// NewDSprites returns the environment at granularity g drawing its initial
// states from rng.
func NewDSprites(g int, rng *rand.Rand) (*DSprites, error) {
	if err := CheckGranularity(g); err != nil {
		return nil, err
	}
	if rng == nil {
		return nil, errors.New("dsprites: nil random source")
	}
	return &DSprites{g: g, rng: rng}, nil
}

// Granularity returns the pixels per bin of x and y.
func (d *DSprites) Granularity() int { return d.g }

// Reset draws a new sprite and returns the first observation.
func (d *DSprites) Reset() int {
	d.st = DSpritesState{
		Shape: d.rng.IntN(DSpritesShapes), Scale: d.rng.IntN(DSpritesScales),
		Orientation: d.rng.IntN(DSpritesOrientations),
		X:           d.rng.IntN(DSpritesPixels), Y: d.rng.IntN(DSpritesPixels),
	}
	d.init, d.steps, d.done, d.reward = d.st, 0, false, 0
	return d.observation()
}

// DSpritesMoveFrom returns the pixel position after action a from (x, y):
// DSpritesMove one-pixel steps, each clipped at the borders (x in [0, 31],
// y in [0, 32]), none once y = 32 (below the image: absorbing).
func DSpritesMoveFrom(x, y, a int) (int, int) {
	for range DSpritesMove {
		if y >= DSpritesPixels {
			break
		}
		switch a {
		case DSpritesDown:
			y++
		case DSpritesUp:
			y = max(y-1, 0)
		case DSpritesLeft:
			x = max(x-1, 0)
		case DSpritesRight:
			x = min(x+1, DSpritesPixels-1)
		}
	}
	return x, y
}

// DSpritesReward is the reward of a sprite of shape crossing the bottom
// at pixel x: (15 - x)/16 if x > 15 else (16 - x)/16 for a square, and
// (x - 15)/16 if x > 15 else (x - 16)/16 for the other shapes.
func DSpritesReward(shape, x int) float64 {
	switch {
	case shape == 0 && x > 15:
		return float64(15-x) / 16
	case shape == 0:
		return float64(16-x) / 16
	case x > 15:
		return float64(x-15) / 16
	}
	return float64(x-16) / 16
}

// DSpritesRate is the rate of the task solved over trials whose rewards
// sum to sum: (sum + n)/(2n).
func DSpritesRate(sum float64, n int) float64 { return (sum + float64(n)) / float64(2*n) }

// Step performs action a. The trial ends when the sprite crosses the
// bottom, with the reward of DSpritesReward, or after DSpritesMaxActions
// actions, with reward -1 (even when the last action crosses the bottom).
// An action out of range, or a step after the end, is an error.
func (d *DSprites) Step(a int) (int, error) {
	if a < 0 || a >= len(DSpritesActionNames) {
		return 0, fmt.Errorf("dsprites: action %d out of range [0, %d)", a, len(DSpritesActionNames))
	}
	if d.done {
		return 0, errors.New("dsprites: Step after the end of the trial (call Reset)")
	}
	d.st.X, d.st.Y = DSpritesMoveFrom(d.st.X, d.st.Y, a)
	d.steps++
	if d.st.Y >= DSpritesPixels {
		d.done, d.reward = true, DSpritesReward(d.st.Shape, d.st.X)
	}
	if d.steps >= DSpritesMaxActions {
		d.done, d.reward = true, -1
	}
	return d.observation(), nil
}

// FactorStates writes the present state as the states of DSpritesModel's
// factors (shape, scale, orientation, and x and y in bins) into dst[:0]
// (agent.StateReporter: after Reset, the trial's true initial state).
func (d *DSprites) FactorStates(dst []int) []int {
	return append(dst[:0], d.st.Shape, d.st.Scale, d.st.Orientation, d.st.X/d.g, d.st.Y/d.g)
}

// observation is the joint observation index of the present state.
func (d *DSprites) observation() int {
	n := DSpritesPixels / d.g
	o := d.st.Shape
	o = o*DSpritesScales + d.st.Scale
	o = o*DSpritesOrientations + d.st.Orientation
	o = o*n + d.st.X/d.g
	return o*(n+1) + d.st.Y/d.g
}

// NumActions returns 4.
func (d *DSprites) NumActions() int { return len(DSpritesActionNames) }

// NumObservations returns the number of joint observations.
func (d *DSprites) NumObservations() int {
	n := DSpritesPixels / d.g
	return DSpritesShapes * DSpritesScales * DSpritesOrientations * n * (n + 1)
}

// Done reports whether the trial is over.
func (d *DSprites) Done() bool { return d.done }

// Reward returns the trial's reward: 0 while it runs.
func (d *DSprites) Reward() float64 { return d.reward }

// Initial returns the state Reset drew.
func (d *DSprites) Initial() DSpritesState { return d.init }

// State returns the present state.
func (d *DSprites) State() DSpritesState { return d.st }

// DSpritesModel returns the agent's model of the task at granularity g, as
// the BTAI_3MF agent holds it: five factors (shape, scale, orientation, x
// and y in bins of g pixels, y with one more bin for "below the image"),
// each observed through its own modality with A the identity with noise
// 0.001 spread evenly over the other outcomes; B of x and y the true move
// of a bin's first pixel under each action with the same noise (y sharing
// x's controls: one action moves both), the other factors' B the identity
// with that noise; D uniform; and one joint preference over (x, y, shape),
// the softmax of a table that is -5 on the bottom row for every x except
// the shape's target corner (x = 0 for squares, the last x for the other
// shapes), +5 there, and 0 elsewhere.
func DSpritesModel(g int) (*pomdp.Model, error) {
	if err := CheckGranularity(g); err != nil {
		return nil, err
	}
	n := DSpritesPixels / g
	var fs pomdp.FactorisedSpec
	add := func(name string, ns int, states, controls []string, controlsOf string, b []float64) {
		if b == nil {
			b = noisyMap(ns, 1, func(_, j int) int { return j })
		}
		nu := max(len(controls), 1)
		if controlsOf != "" {
			nu = len(DSpritesActionNames)
		}
		fs.Factors = append(fs.Factors, pomdp.Factor{Name: name, NumStates: ns, States: states, Controls: controls,
			NumControls: nu, ControlsOf: controlsOf, B: b, D: uniform(ns)})
		fs.Modalities = append(fs.Modalities, pomdp.Modality{Name: name, NumOutcomes: ns, Outcomes: states,
			DependsOn: []string{name}, A: noisyMap(ns, 1, func(_, j int) int { return j })})
	}
	moveX := func(u, j int) int { x, _ := DSpritesMoveFrom(j*g, 0, u); return x / g }
	moveY := func(u, j int) int { _, y := DSpritesMoveFrom(0, j*g, u); return y / g }
	add("shape", DSpritesShapes, DSpritesShapeNames, nil, "", nil)
	add("scale", DSpritesScales, nil, nil, "", nil)
	add("orientation", DSpritesOrientations, nil, nil, "", nil)
	add("x", n, nil, DSpritesActionNames, "", noisyMap(n, len(DSpritesActionNames), moveX))
	add("y", n+1, nil, nil, "x", noisyMap(n+1, len(DSpritesActionNames), moveY))
	logC := make([]float64, n*(n+1)*DSpritesShapes)
	for x := range n {
		for shape := range DSpritesShapes {
			target := n - 1
			if shape == 0 {
				target = 0
			}
			v := -5.0
			if x == target {
				v = 5
			}
			logC[(x*(n+1)+n)*DSpritesShapes+shape] = v
		}
	}
	fs.Preferences = []pomdp.Preference{{Modalities: []string{"x", "y", "shape"}, LogC: logC}}
	return pomdp.NewFactorised(fs)
}

// noisyMap returns nu matrices [u][next][prev] of n states that put 1 -
// noise on next = to(u, prev) and spread DSpritesNoise evenly over the
// other states (the identity, for n = 1).
func noisyMap(n, nu int, to func(u, j int) int) []float64 {
	out := make([]float64, nu*n*n)
	off, on := 0.0, 1.0
	if n > 1 {
		off, on = DSpritesNoise/float64(n-1), 1-DSpritesNoise
	}
	for u := range nu {
		for j := range n {
			hot := to(u, j)
			for i := range n {
				v := off
				if i == hot {
					v = on
				}
				out[(u*n+i)*n+j] = v
			}
		}
	}
	return out
}

func uniform(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = 1 / float64(n)
	}
	return out
}
