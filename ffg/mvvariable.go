package ffg

import (
	"fmt"

	"github.com/arbor-ai/arbor/expfam"
)

// ObserveVector clamps a variable of a family that can be observed at a
// vector (expfam.VectorObserver: the mvnormal family) to x, copied. Its
// statistics become T(x) = [x, x xᵀ].
func (v *Variable) ObserveVector(x []float64) error {
	if v.g != nil {
		v.g.version++
	}
	vo, ok := v.family.Declaration().(expfam.VectorObserver)
	if !ok {
		return fmt.Errorf("ffg: variable %s: a %s variable cannot be observed at a vector", v.describe(), v.family)
	}
	if err := vo.ObservedVectorStats(v.stats, x); err != nil {
		return fmt.Errorf("ffg: variable %s: %w", v.describe(), err)
	}
	v.observed = true
	return nil
}

// MvNormal returns the multivariate Normal posterior (for an observed
// variable, the value with a zero covariance). It panics for another
// family. The slices alias the variable's and must not be modified.
func (v *Variable) MvNormal() expfam.MvNormal {
	v.must(expfam.MvNormalFamily, "MvNormal")
	d := v.shape[0]
	if v.observed {
		return expfam.MvNormal{Mean: v.stats[:d], Cov: make([]float64, d*d)}
	}
	return expfam.MvNormal{Mean: v.param[:d], Cov: v.param[d:]}
}

// Wishart returns the Wishart posterior. It panics for another family.
// The scale aliases the variable's and must not be modified.
func (v *Variable) Wishart() expfam.Wishart {
	v.must(expfam.WishartFamily, "Wishart")
	return expfam.Wishart{DF: v.param[0], Scale: v.param[1:]}
}

// Beta returns the Beta posterior. It panics for another family.
func (v *Variable) Beta() expfam.Beta {
	v.must(expfam.BetaFamily, "Beta")
	return expfam.Beta{A: v.param[0], B: v.param[1]}
}

// Natural returns the natural parameters of v's posterior as its last
// update summed them (the prior's plus the messages, paper eq. 8): for a
// categorical variable unnormalised log-probabilities. It is meaningful
// after an Update or UpdateStructured of v (a variable that sum-product
// sets keeps those of its last such update; before any, nil). The slice
// belongs to the variable and must not be modified.
func (v *Variable) Natural() []float64 {
	if v.g == nil || v.id >= len(v.g.nats) {
		return nil // no update has summed them
	}
	return v.g.nats[v.id]
}
