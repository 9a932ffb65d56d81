package messages

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPolynomialDefinition builds random forms, each term's pairs given in
// a random order of the interfaces, and checks At, ExpectedLog and Message
// against the definitions: ExpectedLog = Σ_t c_t Π E u_i[j] + Const, and
// the message to k the sum over the terms that contain u_k[j] of c_t times
// the other factors' expectations, at entry j.
func TestPolynomialDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 50 {
		n := 1 + rng.IntN(6)
		p := NewPolynomial(n)
		p.Const = rng.NormFloat64()
		type term struct {
			c    float64
			stat []int // per interface, -1 when absent
		}
		var terms []term
		for range rng.IntN(12) {
			tm := term{c: rng.NormFloat64(), stat: make([]int, n)}
			var pairs []int
			for _, i := range rng.Perm(n) {
				tm.stat[i] = -1
				if rng.IntN(2) == 0 {
					tm.stat[i] = rng.IntN(2)
					pairs = append(pairs, i, tm.stat[i])
				}
			}
			p.Term(tm.c, pairs...)
			terms = append(terms, tm)
		}
		stats := make([][]float64, n)
		for i := range stats {
			stats[i] = []float64{rng.NormFloat64(), 0.1 + rng.Float64()}
		}
		if p.NumTerms() != len(terms) || p.NumInterfaces() != n {
			t.Fatalf("%d terms over %d interfaces, want %d over %d", p.NumTerms(), p.NumInterfaces(), len(terms), n)
		}
		want := p.Const
		grad := make([][]float64, n)
		for i := range grad {
			grad[i] = make([]float64, 2)
		}
		for ti, tm := range terms {
			prod := tm.c
			for i, s := range tm.stat {
				if c, got := p.At(ti, i); got != s || c != tm.c {
					t.Fatalf("At(%d, %d) = %v, %d, want %v, %d", ti, i, c, got, tm.c, s)
				}
				if s >= 0 {
					prod *= stats[i][s]
				}
			}
			want += prod
			for k, sk := range tm.stat {
				if sk < 0 {
					continue
				}
				g := tm.c
				for i, s := range tm.stat {
					if s >= 0 && i != k {
						g *= stats[i][s]
					}
				}
				grad[k][sk] += g
			}
		}
		if got := p.ExpectedLog(stats); math.Abs(got-want) > 1e-12 {
			t.Errorf("ExpectedLog %v, want %v", got, want)
		}
		msg := make([]float64, 2)
		for k := range n {
			p.Message(msg, k, stats)
			for j := range 2 {
				if math.Abs(msg[j]-grad[k][j]) > 1e-12 {
					t.Errorf("message to %d entry %d: %v, want %v", k, j, msg[j], grad[k][j])
				}
			}
		}
	}
}

// TestPolynomialTermPanics: a malformed term is a programming error of the
// node that builds the form, and the form is left as it was.
func TestPolynomialTermPanics(t *testing.T) {
	for _, pairs := range [][]int{{0}, {2, 0}, {-1, 0}, {0, -1}, {1, 0, 0, 1, 1, 1}} {
		p := NewPolynomial(2).Term(1, 0, 1)
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Term(%v) did not panic", pairs)
				}
			}()
			p.Term(2, pairs...)
		}()
		if p.NumTerms() != 1 || len(p.pairs) != 1 {
			t.Errorf("Term(%v): %d terms and %d factors left, want 1 and 1", pairs, p.NumTerms(), len(p.pairs))
		}
	}
}
