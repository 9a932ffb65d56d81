package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// decodeTensor parses a JSON number or nested array of numbers into a flat
// row-major slice and its shape, rejecting ragged arrays, non-numbers and
// numbers that are not finite float64 values. field names the JSON field
// in errors.
func decodeTensor(raw json.RawMessage, field string) ([]float64, []int, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", field, err)
	}
	var data []float64
	var shape []int
	if err := walk(v, 0, &shape, &data, field, ""); err != nil {
		return nil, nil, err
	}
	return data, shape, nil
}

func walk(v any, depth int, shape *[]int, data *[]float64, field, path string) error {
	switch x := v.(type) {
	case json.Number:
		if depth != len(*shape) {
			return fmt.Errorf("%s%s: number where an array was expected (ragged array)", field, path)
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return fmt.Errorf("%s%s: %s is not a finite number", field, path, x)
		}
		*data = append(*data, f)
		return nil
	case []any:
		if len(x) == 0 {
			return fmt.Errorf("%s%s: empty array", field, path)
		}
		if depth == len(*shape) {
			if len(*data) != 0 {
				return fmt.Errorf("%s%s: array where a number was expected (ragged array)", field, path)
			}
			*shape = append(*shape, len(x))
		} else if (*shape)[depth] != len(x) {
			return fmt.Errorf("%s%s: %d entries, want %d (ragged array)", field, path, len(x), (*shape)[depth])
		}
		for i, e := range x {
			if err := walk(e, depth+1, shape, data, field, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	default:
		return fmt.Errorf("%s%s: want a number or an array of numbers, got %s", field, path, jsonKind(v))
	}
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// nest turns a flat row-major slice into nested []any of the given shape,
// for JSON output.
func nest(data []float64, shape []int) any {
	if len(shape) <= 1 {
		return data
	}
	stride := len(data) / shape[0]
	out := make([]any, shape[0])
	for i := range out {
		out[i] = nest(data[i*stride:(i+1)*stride], shape[1:])
	}
	return out
}

// decodeScalar parses a JSON number that must be finite.
func decodeScalar(raw json.RawMessage, field string) (float64, error) {
	data, shape, err := decodeTensor(raw, field)
	if err != nil {
		return 0, err
	}
	if len(shape) != 0 {
		return 0, fmt.Errorf("%s: want a number, got an array", field)
	}
	return data[0], nil
}
