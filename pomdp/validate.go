package pomdp

import (
	"fmt"
	"math"
	"strings"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/internal/jsonread"
)

// Private validation helpers. expfam.ValidateDistribution and friends were
// not available when this was written; these mirror their intent and name
// the offending field in the error.

// elemName formats field[i][j]... for the flat index k of a tensor of the
// given shape.
func elemName(field string, shape []int, k int) string {
	idx := make([]int, len(shape))
	for i := len(shape) - 1; i >= 0; i-- {
		idx[i] = k % shape[i]
		k /= shape[i]
	}
	var sb strings.Builder
	sb.WriteString(field)
	for _, i := range idx {
		fmt.Fprintf(&sb, "[%d]", i)
	}
	return sb.String()
}

func prod(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// columns splits shape into (number of leading matrices, rows K, columns M):
// [n] is one column of n, [K, M] one K×M matrix, [L, K, M] L matrices.
func columns(shape []int) (lead, k, m int) {
	switch len(shape) {
	case 1:
		return 1, shape[0], 1
	case 2:
		return 1, shape[0], shape[1]
	default:
		return shape[0], shape[1], shape[2]
	}
}

// colPrefix names matrix l of a tensor: "B[1]" for 3-D tensors, the field
// itself otherwise.
func colPrefix(field string, shape []int, l int) string {
	if len(shape) == 3 {
		return fmt.Sprintf("%s[%d]", field, l)
	}
	return field
}

// checkFinite rejects NaN, ±Inf and negative entries.
func checkFinite(field, what string, x []float64, shape []int) error {
	for k, v := range x {
		switch {
		case math.IsNaN(v):
			return fmt.Errorf("%s: NaN", elemName(field, shape, k))
		case math.IsInf(v, 0):
			return fmt.Errorf("%s: %v, want finite", elemName(field, shape, k), v)
		case v < 0:
			return fmt.Errorf("%s: negative %s %v", elemName(field, shape, k), what, v)
		}
	}
	return nil
}

// checkConc validates optional Dirichlet concentrations: every entry finite
// and > 0 (a Dirichlet concentration of 0 is not a distribution: expfam,
// nodes and the learning agent all refuse it), so every column has a
// positive sum. The error names the element, e.g. "a[0][0]: 0, want > 0".
// It returns x itself (nil for nil input): New and NewFactorised copy a
// caller's slices before validating them, and the file reader hands over
// the slices it made.
func checkConc(field string, x []float64, shape []int) ([]float64, error) {
	if x == nil {
		return nil, nil
	}
	if n := prod(shape); len(x) != n {
		return nil, fmt.Errorf("%s: %d entries, want %d", field, len(x), n)
	}
	if err := checkFinite(field, "concentration", x, shape); err != nil {
		return nil, err
	}
	for k, v := range x {
		if v == 0 {
			return nil, fmt.Errorf("%s: 0, want > 0 (a Dirichlet concentration)", elemName(field, shape, k))
		}
	}
	return x, nil
}

// expectation returns the mean of independent Dirichlet columns: conc with
// every column normalised.
func expectation(conc []float64, shape []int) []float64 {
	p := clone(conc)
	normalizeColumns(p, shape)
	return p
}

// normalizeColumns divides every column of p (the axis after the lead
// axis of shape) by its sum, in place: expectation's arithmetic.
func normalizeColumns(p []float64, shape []int) {
	lead, nk, nm := columns(shape)
	for l := range lead {
		for j := range nm {
			sum := 0.0
			for i := range nk {
				sum += p[(l*nk+i)*nm+j]
			}
			for i := range nk {
				p[(l*nk+i)*nm+j] /= sum
			}
		}
	}
}

// checkProb validates a tensor whose columns (first axis after the lead
// axis) are distributions. When p is nil it falls back to the expectation of
// conc (a new slice), or reports the field as missing; otherwise it returns
// p itself, as checkConc does.
func checkProb(field string, p, conc []float64, concField string, shape []int) ([]float64, error) {
	if p == nil {
		if conc == nil {
			if concField != "" {
				return nil, fmt.Errorf("%s: missing (give %s or its concentrations %s)", field, field, concField)
			}
			return nil, fmt.Errorf("%s: missing", field)
		}
		return expectation(conc, shape), nil
	}
	if n := prod(shape); len(p) != n {
		return nil, fmt.Errorf("%s: %d entries, want %d", field, len(p), n)
	}
	if err := checkFinite(field, "probability", p, shape); err != nil {
		return nil, err
	}
	lead, nk, nm := columns(shape)
	for l := range lead {
		for j := range nm {
			sum := 0.0
			for i := range nk {
				sum += p[(l*nk+i)*nm+j]
			}
			if math.Abs(sum-1) > Tolerance {
				if len(shape) == 1 {
					return nil, fmt.Errorf("%s: not a distribution: sums to %.10g, want 1 (tolerance %s)", field, sum, toleranceText)
				}
				return nil, fmt.Errorf("%s: column %d sums to %.10g, want 1 (tolerance %s)", colPrefix(field, shape, l), j, sum, toleranceText)
			}
		}
	}
	return p, nil
}

// fromLog returns p, or softmax(logp) when logp is given instead: the
// log-preferences of SPM and pymdp. Both given is an error, as is a NaN,
// +Inf, a wrong length or every entry -Inf.
func fromLog(field, logField string, p, logp []float64, n int) ([]float64, error) {
	if logp == nil {
		return p, nil
	}
	if p != nil {
		return nil, fmt.Errorf("%s and %s: both given, want one (%s are log-preferences: %s = softmax(%s))", field, logField, logField, field, logField)
	}
	if len(logp) != n {
		return nil, fmt.Errorf("%s: %d entries, want %d", logField, len(logp), n)
	}
	mx := math.Inf(-1)
	for i, x := range logp {
		if math.IsNaN(x) || math.IsInf(x, 1) {
			return nil, fmt.Errorf("%s[%d]: %v, want a finite log-preference (or -Inf)", logField, i, x)
		}
		mx = math.Max(mx, x)
	}
	if math.IsInf(mx, -1) {
		return nil, fmt.Errorf("%s: every entry is -Inf, want at least one finite", logField)
	}
	out := make([]float64, n)
	expfam.Softmax(out, logp)
	return out, nil
}

// checkNames validates optional names: count n, non-empty, no duplicates.
func checkNames(field string, names []string, n int, what string) ([]string, error) {
	if names == nil {
		return nil, nil
	}
	if len(names) != n {
		return nil, fmt.Errorf("%s: %d names, want %d (number of %s)", field, len(names), n, what)
	}
	seen := make(map[string]int, n)
	for i, s := range names {
		if s == "" {
			return nil, fmt.Errorf("%s[%d]: empty name", field, i)
		}
		if f := jsonread.NameFault(s); f != "" {
			return nil, fmt.Errorf("%s[%d]: %s %s", field, i, jsonread.Quote(s), f)
		}
		if j, ok := seen[s]; ok {
			return nil, fmt.Errorf("%s[%d]: duplicate name %s (also %s[%d])", field, i, jsonread.Quote(s), field, j)
		}
		seen[s] = i
	}
	return cloneStrings(names), nil
}
