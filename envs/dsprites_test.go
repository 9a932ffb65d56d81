package envs_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/envs"
)

// TestDSpritesModel: at granularity 8 (4 x bins, 5 y bins), B of x under
// "right" takes bin 0 (pixel 0) to bin 1 (pixel 8) with 0.999 and puts
// 0.001/3 elsewhere; B of y under "down" keeps the last bin (below the
// image: absorbing); the joint preference is largest at the bottom-left
// for a square, e^5 / Z, where the 4·5·3 = 60 entries of the log table
// hold, per shape, one +5, three -5 and 16 zeros: Z = 3 (e^5 + 3 e^-5 + 16).
func TestDSpritesModel(t *testing.T) {
	m, err := envs.DSpritesModel(8)
	if err != nil {
		t.Fatal(err)
	}
	if m.NumActions() != 4 || m.ActionName(3) != "right" || m.ControlOwner(4) != 3 {
		t.Fatalf("%d actions, action 3 %q, y's controls from %d", m.NumActions(), m.ActionName(3), m.ControlOwner(4))
	}
	bx := m.FactorB(3) // [u][next][prev], 4 states
	if got := bx[(envs.DSpritesRight*4+1)*4+0]; got != 0.999 {
		t.Errorf("B_x[right][1][0] = %v, want 0.999", got)
	}
	if got := bx[(envs.DSpritesRight*4+2)*4+0]; math.Abs(got-0.001/3) > 1e-18 {
		t.Errorf("B_x[right][2][0] = %v, want 0.001/3", got)
	}
	by := m.FactorB(4) // 5 states
	if got := by[(envs.DSpritesDown*5+4)*5+4]; got != 0.999 {
		t.Errorf("B_y[down][4][4] = %v, want 0.999", got)
	}
	c := m.PreferenceC(0) // [x][y][shape]
	z := 3 * (math.Exp(5) + 3*math.Exp(-5) + 16)
	if got, want := c[(0*5+4)*3+0], math.Exp(5)/z; math.Abs(got-want) > 1e-15 {
		t.Errorf("C[x 0][bottom][square] = %v, want %v", got, want)
	}
	if got, want := c[(3*5+4)*3+0], math.Exp(-5)/z; math.Abs(got-want) > 1e-15 {
		t.Errorf("C[x 3][bottom][square] = %v, want %v", got, want)
	}
	for _, g := range []int{0, 3, 64} {
		if _, err := envs.DSpritesModel(g); err == nil {
			t.Errorf("granularity %d: no error", g)
		}
	}
}

// TestDSpritesLimit: a trial that never crosses the bottom ends after 50
// actions with reward -1.
func TestDSpritesLimit(t *testing.T) {
	d, err := envs.NewDSprites(4, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	d.Reset()
	for i := range envs.DSpritesMaxActions {
		if d.Done() {
			t.Fatalf("done after %d actions", i)
		}
		if _, err := d.Step(envs.DSpritesUp); err != nil {
			t.Fatal(err)
		}
	}
	if !d.Done() || d.Reward() != -1 {
		t.Errorf("done %v, reward %v; want true, -1", d.Done(), d.Reward())
	}
	if _, err := d.Step(envs.DSpritesDown); err == nil {
		t.Error("Step after the end: no error")
	}
}

// A square taken to the left edge and dropped earns the full reward.
func ExampleDSprites() {
	d, _ := envs.NewDSprites(8, rand.New(rand.NewPCG(3, 0)))
	d.Reset()
	s := d.Initial()
	fmt.Println(envs.DSpritesShapeNames[s.Shape], s.X, s.Y)
	for !d.Done() {
		if d.State().X > 0 {
			_, _ = d.Step(envs.DSpritesLeft)
		} else {
			_, _ = d.Step(envs.DSpritesDown)
		}
	}
	fmt.Println(d.State().X, d.State().Y, d.Reward(), envs.DSpritesRate(d.Reward(), 1))
	// Output:
	// square 27 28
	// 0 32 1 1
}
