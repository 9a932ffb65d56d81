package pomdp_test

import (
	"testing"

	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/pomdp"
)

// BenchmarkJointCrossEntropy: -E[ln C] of dSprites' joint preference over
// x, y and shape at granularity 1 (32 · 33 · 3 = 3,168 joint outcomes, 96
// of them off the table's most frequent value), under the prediction of
// the uniform belief.
func BenchmarkJointCrossEntropy(b *testing.B) {
	m, err := envs.DSpritesModel(1)
	if err != nil {
		b.Fatal(err)
	}
	qs := make([]float64, m.NumStates())
	for f := range m.NumFactors() {
		for s := range m.FactorSize(f) {
			qs[m.FactorOffset(f)+s] = 1 / float64(m.FactorSize(f))
		}
	}
	qo := make([]float64, m.ObsLen())
	pomdp.PredictObs(m, qo, qs)
	b.ReportAllocs()
	for b.Loop() {
		pomdp.JointCrossEntropy(m, qo)
	}
}
