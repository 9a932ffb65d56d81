package pomdp

import "fmt"

// LogFloor is the smallest probability of the literal B (and Ā, B̄ in the
// BTAI future) that mean-field inference takes logarithms of: entries below
// it are raised to it and their columns renormalised (FloorColumns), so
// that ln B >= ln(LogFloor) = -32. Mean-field VMP multiplies ln B by the
// product of two marginals; with a hard zero, any uncertainty about a
// deterministic transition (the T-maze context carried from S_0 to S_1)
// makes every value of a state impossible (-Inf natural parameters). SPM
// guards its logarithms the same way. The expected free energy uses the
// unfloored model, and A is not floored over the past: an observation
// excludes the states that cannot emit it exactly. The floor leaves mass of
// order LogFloor on states that B makes impossible; with a C that has zeros
// this can make G infinite.
const LogFloor = 1.2664165549094176e-14 // exp(-32)

// FloorColumns raises the entries of the k×n column-stochastic matrix x
// (row-major, columns sum to 1) below LogFloor to it and renormalises the
// columns it changed; columns with no entry below the floor are left bit
// for bit as they are. It changes probabilities by at most about
// k·LogFloor ≈ 1.3e-14·k. It panics if k or n is negative or len(x) !=
// k·n ("pomdp: FloorColumns: len(x) = 3, want 4"): a programming error.
func FloorColumns(x []float64, k, n int) {
	if k < 0 || n < 0 || len(x) != k*n {
		badDims("FloorColumns", "x", len(x), k, n, 1)
	}
	for c := range n {
		low := false
		for r := range k {
			if x[r*n+c] < LogFloor {
				low = true
				break
			}
		}
		if !low {
			continue
		}
		z := 0.0
		for r := range k {
			x[r*n+c] = max(x[r*n+c], LogFloor)
			z += x[r*n+c]
		}
		for r := range k {
			x[r*n+c] /= z
		}
	}
}

// badDims panics for fn given a slice x of n entries for the dimensions
// a×b×c, or negative dimensions.
//
//go:noinline
func badDims(fn, x string, n, a, b, c int) {
	if a < 0 || b < 0 || c < 0 {
		panic(fmt.Sprintf("pomdp: %s: negative dimension in %d×%d×%d", fn, a, b, c))
	}
	badLen(fn, x, n, a*b*c)
}
