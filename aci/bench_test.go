package aci

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// mazePOMDP is a maze-sized random POMDP: 30 states, 30 observations, 5
// actions (up, down, left, right, stay).
func mazePOMDP(b *testing.B) (*POMDP, []float64) {
	rng := rand.New(rand.NewPCG(42, 43))
	return randPOMDP(b, rng, 30, 30, 5), randColumns(rng, 1, 30, 1)
}

func BenchmarkEvaluatePolicies(b *testing.B) {
	m, qs := mazePOMDP(b)
	for h := 2; h <= 8; h++ {
		b.Run(fmt.Sprintf("T=%d", h), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := EvaluatePolicies(m, qs, h, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkTopPolicies(b *testing.B) {
	m, qs := mazePOMDP(b)
	for h := 2; h <= 8; h++ {
		b.Run(fmt.Sprintf("T=%d", h), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := TopPolicies(m, qs, h, 10, 16, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
