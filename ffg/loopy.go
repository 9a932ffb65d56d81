package ffg

// Loopy belief propagation: sum-product on a graph whose discrete
// variables form loops, asked for explicitly (SumProductLoopy).

import (
	"fmt"
	"math"
)

// SumProductLoopy is SumProduct on a graph whose discrete variables may
// form loops: damped loopy belief propagation (every message updated at
// once, rounds until no message moves by more than the tolerance or the
// cap), which is approximate where there are loops and exact on a tree.
// It returns -F_Bethe, the Bethe approximation of ln Z, and whether the
// messages converged. Options out of their range are an error.
func (g *Graph) SumProductLoopy(o LoopyOptions) (logZ float64, converged bool, err error) {
	if o.Damping == 0 {
		o.Damping = 0.5
	}
	if !(o.Damping > 0 && o.Damping < 1) {
		return 0, false, fmt.Errorf("ffg: sum-product: damping %v, want a number in (0, 1)", o.Damping)
	}
	if o.Iterations < 0 {
		return 0, false, fmt.Errorf("ffg: sum-product: iterations %d, want >= 0", o.Iterations)
	}
	if !(o.Tolerance >= 0) {
		return 0, false, fmt.Errorf("ffg: sum-product: tolerance %v, want >= 0", o.Tolerance)
	}
	if o.Iterations == 0 {
		o.Iterations = 200
	}
	if o.Tolerance == 0 {
		o.Tolerance = 1e-10
	}
	lg, err := g.gaussPass()
	if err != nil {
		return 0, false, err
	}
	st, err := g.spPrepare(true)
	if err != nil {
		return 0, false, err
	}
	logZ, converged = st.loopy(o)
	return lg + logZ, converged, nil
}

// loopy runs damped flooding belief propagation and returns -F_Bethe,
//
//	F_Bethe = Σ_f Σ_x b_f(x) (ln b_f(x) - ln ψ_f(x)) + Σ_v (1 - d_v) Σ_x b_v(x) ln b_v(x),
//
// d_v the number of factors of v (exact, -ln Z, on a tree).
func (st *spState) loopy(o LoopyOptions) (float64, bool) {
	for fi := range st.factors {
		f := &st.factors[fi]
		for s := range f.msgOut {
			for i := range f.msgOut[s] {
				f.msgOut[s][i] = 1 / float64(len(f.msgOut[s]))
			}
		}
	}
	converged := false
	var old []float64
	for range o.Iterations {
		for vi := range st.vars {
			for j := range st.vars[vi].factors {
				st.varToFactor(vi, j)
			}
		}
		moved := 0.0
		for fi := range st.factors {
			f := &st.factors[fi]
			for s := range f.hidden {
				old = append(old[:0], f.msgOut[s]...)
				st.factorToVar(fi, s)
				for i, v := range f.msgOut[s] {
					nv := (1-o.Damping)*v + o.Damping*old[i]
					moved = math.Max(moved, math.Abs(nv-old[i]))
					f.msgOut[s][i] = nv
				}
			}
		}
		if moved < o.Tolerance {
			converged = true
			break
		}
	}
	// Beliefs and the Bethe free energy.
	for vi := range st.vars {
		for j := range st.vars[vi].factors {
			st.varToFactor(vi, j)
		}
	}
	fb := 0.0
	for fi := range st.factors {
		f := &st.factors[fi]
		b := f.belief()
		for x, p := range b {
			if p > 0 {
				fb += p * (math.Log(p) - f.logpsiAt(x))
			}
		}
	}
	for vi := range st.vars {
		v := &st.vars[vi]
		b := st.varBelief(vi, v.v.stats)
		normalize(b)
		d := float64(len(v.factors))
		for _, p := range b {
			if p > 0 {
				fb += (1 - d) * p * math.Log(p)
			}
		}
	}
	return -fb, converged
}

// logpsiAt returns ln ψ at x (the shared potential's, for a follower).
func (sf *spFactor) logpsiAt(x int) float64 {
	return math.Log(sf.psi[x]) + sf.scale
}
