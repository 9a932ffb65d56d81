package messages

import (
	"errors"
	"fmt"
	"math"
)

// Tensor is a dense row-major tensor with optional axis names.
type Tensor struct {
	Data  []float64
	Shape []int
	// Axes optionally names each axis; when set, len(Axes) == len(Shape).
	Axes []string
}

// NewTensor returns a tensor over a copy of data. It returns an error when
// the shape is empty or has a non-positive extent, when len(data) is not
// the product of the shape, or when axes is given with the wrong length.
func NewTensor(data []float64, shape []int, axes ...string) (Tensor, error) {
	n, err := ShapeLen(shape)
	if err != nil {
		return Tensor{}, err
	}
	if len(data) != n {
		return Tensor{}, fmt.Errorf("messages: tensor of shape %v needs %d elements, got %d", shape, n, len(data))
	}
	if len(axes) != 0 && len(axes) != len(shape) {
		return Tensor{}, fmt.Errorf("messages: %d axis names for a rank-%d tensor", len(axes), len(shape))
	}
	t := Tensor{Data: append([]float64(nil), data...), Shape: append([]int(nil), shape...)}
	if len(axes) != 0 {
		t.Axes = append([]string(nil), axes...)
	}
	return t, nil
}

// ShapeLen returns the number of elements of a tensor of the given shape.
// It returns an error for an empty shape, a non-positive extent or an
// element count that overflows.
func ShapeLen(shape []int) (int, error) {
	if len(shape) == 0 {
		return 0, errors.New("messages: empty shape")
	}
	n := 1
	for i, s := range shape {
		if s <= 0 {
			return 0, fmt.Errorf("messages: shape %v: axis %d has extent %d, want > 0", shape, i, s)
		}
		if n > math.MaxInt32/s {
			return 0, fmt.Errorf("messages: shape %v is too large", shape)
		}
		n *= s
	}
	return n, nil
}

// Len returns the number of elements, the product of the shape.
func (t Tensor) Len() int {
	n := 1
	for _, s := range t.Shape {
		n *= s
	}
	return n
}

// Rank returns the number of axes.
func (t Tensor) Rank() int { return len(t.Shape) }

// Axis returns the index of the axis called name, or -1.
func (t Tensor) Axis(name string) int {
	for i, a := range t.Axes {
		if a == name {
			return i
		}
	}
	return -1
}
