package pomdp

import (
	"errors"
	"fmt"
	"math"

	"github.com/arbor-ai/arbor/schedule"
)

// factorFilter is the state of factorised filtering (PastFactorised): the
// present belief, one marginal per factor, and the filtered beliefs of the
// kept steps.
type factorFilter struct {
	belief []float64   // Q(s_t), every factor's marginal
	hist   [][]float64 // the filtered beliefs of the kept steps, oldest first
	pred   []float64   // scratch: the predicted belief
	logZ   float64     // Σ_t Σ_m ln E_pred[A_m(o_m | ·)]
}

func newFactorFilter(m *Model) (*factorFilter, error) {
	if a, b, d := m.Learnable(); a || b || d {
		return nil, errors.New("past inference factorised: the model learns (concentrations a, b or d), which factorised filtering does not (use filter or vmp)")
	}
	return &factorFilter{pred: make([]float64, m.ns)}, nil
}

// factorStep computes the belief after observation obs from the
// predicted belief pred (a new slice) and the step's evidence term, or the
// error of an impossible observation at step t.
func (p *Past) factorStep(t int, pred []float64, obs int) ([]float64, float64, error) {
	m := p.m
	p.outs = m.DecodeObs(p.outs, obs)
	lz := 0.0
	for i := range m.mods {
		md := &m.mods[i]
		v := m.expect(md, md.a[p.outs[i]*md.size:(p.outs[i]+1)*md.size], pred)
		if !(v > 0) {
			fix := "A or B"
			if t == 0 {
				fix = "A or D"
			}
			return nil, 0, p.impossible(t, obs, i, fix)
		}
		lz += math.Log(v)
	}
	q, err := m.meanField(make([]float64, m.ns), pred, obs, p.outs)
	if err != nil {
		return nil, 0, err
	}
	for _, v := range q {
		if math.IsNaN(v) {
			return nil, 0, p.impossible(t, obs, -1, "A or B")
		}
	}
	return q, lz, nil
}

// factorStart computes the belief after the first observation, from D.
func (p *Past) factorStart(obs int) ([]float64, float64, error) {
	d := make([]float64, 0, p.m.ns)
	for _, f := range p.m.factors {
		d = append(d, f.d...)
	}
	return p.factorStep(0, d, obs)
}

// factorGrow moves the belief one step: the prediction of every factor
// under the action (or the mixture of GrowMixed), then the observation.
func (p *Past) factorGrow(action int, probs []float64, obs int) error {
	ff, m := p.ff, p.m
	if probs == nil {
		Propagate(m, ff.pred, ff.belief, action)
	} else {
		clear(ff.pred)
		tmp := make([]float64, m.ns)
		for u, w := range probs {
			if w == 0 {
				continue
			}
			Propagate(m, tmp, ff.belief, u)
			for s, v := range tmp {
				ff.pred[s] += w * v
			}
		}
	}
	q, lz, err := p.factorStep(p.t+1, ff.pred, obs)
	if err != nil {
		return err
	}
	ff.belief, ff.logZ = q, ff.logZ+lz
	ff.hist = append(ff.hist, q)
	if p.window > 0 && len(ff.hist) > p.window {
		ff.hist = append(ff.hist[:0], ff.hist[1:]...)
	}
	return nil
}

// factorInfer writes the belief into the present states' posteriors and
// returns -ln Z as F (Infer).
func (p *Past) factorInfer() (*schedule.Result, error) {
	if err := p.factorPresent(); err != nil {
		return nil, err
	}
	return &schedule.Result{Iterations: 1, Converged: true, FreeEnergy: []float64{-p.ff.logZ}}, nil
}

// factorPresent is factorInfer without its result.
func (p *Past) factorPresent() error {
	present := p.steps[len(p.steps)-1].s
	for fi, f := range p.m.factors {
		if err := present[fi].SetProbs(p.ff.belief[f.off : f.off+f.ns]); err != nil {
			return fmt.Errorf("pomdp: past inference factorised: %w", err)
		}
	}
	return nil
}

// factorSmoothed returns copies of the filtered beliefs of the kept steps.
func (p *Past) factorSmoothed() [][]float64 {
	out := make([][]float64, len(p.ff.hist))
	for k, q := range p.ff.hist {
		out[k] = clone(q)
	}
	return out
}
