package pomdp

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// ScaleModel returns a copy of m with its preferences sharpened by pref
// and its prior concentrations scaled by conc:
//
//	C'_m = σ(pref · ln C_m)  for every modality m (and C_states and the joint preferences likewise)
//	a' = conc · a,  b' = conc · b,  d' = conc · d
//
// pref is the preference precision: pref = 1 is the model's C, pref = 2
// doubles every log-preference (ln C is defined up to a constant, which
// the softmax removes), and an outcome of C = 0 stays at 0. conc scales
// the concentrations without changing their expectations (A, B and D are
// unchanged when the model gave them as concentrations): it is how firmly
// the agent holds its priors, the inverse of how fast it learns. With
// pref = conc = 1 it returns m itself. pref and conc must be finite and >
// 0; conc must keep every concentration finite and > 0; m must be valid
// (Check).
func ScaleModel(m *Model, pref, conc float64) (*Model, error) {
	if err := Check(m); err != nil {
		return nil, apiError(err)
	}
	if !positive(pref) {
		return nil, fmt.Errorf("pomdp: ScaleModel: pref %v, want finite > 0", pref)
	}
	if !positive(conc) {
		return nil, fmt.Errorf("pomdp: ScaleModel: conc %v, want finite > 0", conc)
	}
	if pref == 1 && conc == 1 {
		return m, nil
	}
	c := *m
	c.factors = slices.Clone(m.factors)
	c.mods = slices.Clone(m.mods)
	if pref != 1 {
		for i := range c.mods {
			if c.mods[i].c != nil { // nil: in a joint preference
				c.mods[i].c = sharpen(c.mods[i].c, pref)
			}
		}
		c.prefs = slices.Clone(m.prefs)
		for i := range c.prefs {
			c.prefs[i].c = sharpen(c.prefs[i].c, pref)
		}
		for i := range c.factors {
			if c.factors[i].cStates != nil {
				c.factors[i].cStates = sharpen(c.factors[i].cStates, pref)
			}
		}
	}
	if conc != 1 {
		for i := range c.mods {
			var err error
			if c.mods[i].concA, err = scaleConc(c.mods[i].concA, conc); err != nil {
				return nil, apiError(err)
			}
		}
		for i := range c.factors {
			var err error
			if c.factors[i].concB, err = scaleConc(c.factors[i].concB, conc); err != nil {
				return nil, apiError(err)
			}
			if c.factors[i].concD, err = scaleConc(c.factors[i].concD, conc); err != nil {
				return nil, apiError(err)
			}
		}
	}
	c.work, c.valid = 0, false
	if err := c.finish(); err != nil {
		return nil, apiError(err)
	}
	return &c, nil
}

// sharpen returns σ(k ln x) for a distribution x (zeros stay zero).
func sharpen(x []float64, k float64) []float64 {
	hi := math.Inf(-1)
	for _, v := range x {
		if v > 0 {
			hi = math.Max(hi, math.Log(v))
		}
	}
	out := make([]float64, len(x))
	z := 0.0
	for i, v := range x {
		if v > 0 {
			out[i] = math.Exp(k * (math.Log(v) - hi))
			z += out[i]
		}
	}
	for i := range out {
		out[i] /= z
	}
	return out
}

var errConcRange = errors.New("pomdp: ScaleModel: conc makes a concentration 0 or infinite")

// scaleConc returns k·x (nil for nil).
func scaleConc(x []float64, k float64) ([]float64, error) {
	if x == nil {
		return nil, nil
	}
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = k * v
		if !(out[i] > 0) || math.IsInf(out[i], 0) {
			return nil, errConcRange
		}
	}
	return out, nil
}

// positive reports whether x is finite and > 0.
func positive(x float64) bool { return x > 0 && !math.IsInf(x, 1) }
