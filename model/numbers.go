package model

import (
	"encoding/json"
	"fmt"

	"github.com/arbor-ai/arbor/internal/jsonread"
)

// decodeTensor parses a JSON number or nested array of numbers into a flat
// row-major slice and its shape, rejecting ragged arrays, non-numbers and
// numbers that are not finite float64 values. field names the JSON field
// in errors.
func decodeTensor(raw json.RawMessage, field string) ([]float64, []int, error) {
	if fault, off := jsonread.Check(raw); fault != jsonread.Valid {
		var v any
		err := json.Unmarshal(raw, &v)
		if err == nil {
			err = fmt.Errorf("invalid JSON at byte %d", off)
		}
		return nil, nil, fmt.Errorf("%s: %v", field, err)
	}
	r := &jsonread.Reader{Data: raw}
	return tensorNumbers(r.ReadTensor(-1), field)
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
