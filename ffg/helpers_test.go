package ffg_test

import (
	"math"
	"testing"

	"github.com/arbor-ai/arbor/ffg"
)

// polish sweeps every hidden variable of g until no expected statistic
// moves by more than 1e-14 (or 100000 sweeps). A schedule stops on |ΔF| <
// tol, which only puts the posteriors within about sqrt(tol) of the fixed
// point, because F is quadratic near its minimum; tests of fixed points and
// of posteriors to 1e-9 need the fixed point itself.
func polish(t testing.TB, g *ffg.Graph) {
	t.Helper()
	prev := map[*ffg.Variable][]float64{}
	for range 100000 {
		moved := 0.0
		for _, v := range g.Variables() {
			if v.Observed() {
				continue
			}
			if err := g.Update(v); err != nil {
				t.Fatal(err)
			}
			p, ok := prev[v]
			if !ok {
				p = make([]float64, len(v.Stats()))
				prev[v] = p
				moved = math.Inf(1)
			}
			for i, x := range v.Stats() {
				moved = math.Max(moved, math.Abs(x-p[i]))
				p[i] = x
			}
		}
		if moved < 1e-14 {
			return
		}
	}
	t.Fatal("polish: no fixed point after 100000 sweeps")
}
