package expfam

import (
	"fmt"
	"math"
	"strconv"
)

// ValidateConcentrations returns an error unless a has at least one entry and
// every entry is finite and > 0. The error names the first offending index.
func ValidateConcentrations(a []float64) error {
	return validateConcentrations(a, "concentration")
}

func validateConcentrations(a []float64, what string) error {
	if len(a) == 0 {
		return fmt.Errorf("expfam: %s: no entries, want at least one", what)
	}
	for i, x := range a {
		switch {
		case math.IsNaN(x) || math.IsInf(x, 0):
			return fmt.Errorf("expfam: %s[%d] is %g, want a finite number > 0", what, i, x)
		case x <= 0:
			return fmt.Errorf("expfam: %s[%d] is %g, want > 0", what, i, x)
		}
	}
	return nil
}

// ValidateDistribution returns an error unless p has at least one entry,
// every entry is finite and >= 0, and the entries sum to 1 within tol
// (|Σp - 1| <= tol). The error names the first offending entry, or the sum.
func ValidateDistribution(p []float64, tol float64) error {
	if len(p) == 0 {
		return fmt.Errorf("expfam: distribution has no entries, want at least one")
	}
	var s float64
	for i, x := range p {
		if err := checkProb(x); err != "" {
			return fmt.Errorf("expfam: entry %d is %g, want %s", i, x, err)
		}
		s += x
	}
	if !(math.Abs(s-1) <= tol) {
		return fmt.Errorf("expfam: entries sum to %.10g, want 1 (tolerance %g)", s, tol)
	}
	return nil
}

// checkProb returns what is wrong with a probability x, or "".
func checkProb(x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return "a finite number >= 0"
	case x < 0:
		return ">= 0"
	}
	return ""
}

// ValidateColumns returns an error unless t, stored row-major over shape (the
// DirichletTensor layout: element (k, j) of flattened column j is
// t[k*cols+j] with cols = shape[1]·shape[2]·…), is a tensor of distributions
// over axis 0: every column is finite, non-negative and sums to 1 within tol.
// It also checks the shape itself: at least one axis, every axis >= 1, and
// len(t) equal to the product of the axes. Errors name the column by its
// multi-index over shape[1:] and the entry by its full multi-index, e.g.
// "column [1 2] sums to 0.9". ValidateColumns never panics.
func ValidateColumns(t []float64, shape []int, tol float64) error {
	n, err := shapeSize(shape)
	if err != nil {
		return err
	}
	if len(t) != n {
		return fmt.Errorf("expfam: shape %v has %d entries, got %d values", shape, n, len(t))
	}
	k := shape[0]
	cols := n / k
	for j := range cols {
		var s float64
		for i := range k {
			x := t[i*cols+j]
			if msg := checkProb(x); msg != "" {
				return fmt.Errorf("expfam: entry %v (column %v) is %g, want %s",
					multiIndex(shape, i*cols+j), multiIndex(shape[1:], j), x, msg)
			}
			s += x
		}
		if !(math.Abs(s-1) <= tol) {
			return fmt.Errorf("expfam: column %v sums to %.10g, want 1 (tolerance %g)", multiIndex(shape[1:], j), s, tol)
		}
	}
	return nil
}

// shapeSize returns the number of entries of a tensor of the given shape, or
// an error when the shape has no axes, an axis < 1 or too many entries.
func shapeSize(shape []int) (int, error) {
	if len(shape) == 0 {
		return 0, fmt.Errorf("expfam: shape has no axes, want at least one")
	}
	n := 1
	for i, d := range shape {
		if d < 1 {
			return 0, fmt.Errorf("expfam: shape %v: axis %d has size %d, want >= 1", shape, i, d)
		}
		if n > math.MaxInt/d {
			return 0, fmt.Errorf("expfam: shape %v has too many entries", shape)
		}
		n *= d
	}
	return n, nil
}

// multiIndex returns the row-major multi-index of flat index j over shape.
func multiIndex(shape []int, j int) []int {
	idx := make([]int, len(shape))
	for i := len(shape) - 1; i >= 0; i-- {
		idx[i] = j % shape[i]
		j /= shape[i]
	}
	return idx
}

// checkShape panics unless shape is valid and has n entries.
func checkShape(shape []int, n int, where string) {
	m, err := shapeSize(shape)
	if err != nil {
		panic("expfam: " + where + ": " + err.Error()[len("expfam: "):])
	}
	if m != n {
		panic("expfam: " + where + ": shape has " + strconv.Itoa(m) + " entries, len(Alpha) = " + strconv.Itoa(n))
	}
}
