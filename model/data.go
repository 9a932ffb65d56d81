package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/schedule"
)

// Evidence is the observed value of a categorical variable: an outcome
// index, or (Probs non-nil) a probability vector, soft evidence. Index -1
// with Probs nil means no evidence.
type Evidence struct {
	Index int
	Probs []float64
}

// Data is one data set: evidence by variable name. A variable a data set
// does not name keeps the model file's observed value (or stays hidden).
type Data map[string]Evidence

// ParseData decodes one data set, a JSON object from variable name to an
// outcome index or a probability vector: {"o0": 1, "o5": [0.2, 0.5, 0.3]}.
// where names the input in errors ("data.jsonl:3").
func ParseData(where string, line []byte) (Data, error) {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&raw); err != nil {
		return nil, &Error{File: where, Err: fmt.Errorf("want a JSON object from variable names to observed values: %v", err)}
	}
	if dec.More() {
		return nil, &Error{File: where, Err: errors.New("trailing data after the JSON object")}
	}
	if raw == nil {
		return nil, &Error{File: where, Err: errors.New("want a JSON object, got null")}
	}
	d := Data{}
	names := make([]string, 0, len(raw))
	for k := range raw {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		v := bytes.TrimSpace(raw[name])
		field := fmt.Sprintf("%q", shortName(name))
		var idx float64
		if err := json.Unmarshal(v, &idx); err == nil {
			if idx != math.Trunc(idx) || idx < 0 || idx > 1<<31 {
				return nil, &Error{File: where, Field: field, Err: fmt.Errorf("%v, want an outcome index (a whole number >= 0) or a probability vector", idx)}
			}
			d[name] = Evidence{Index: int(idx)}
			continue
		}
		var probs []float64
		if err := json.Unmarshal(v, &probs); err != nil || probs == nil {
			return nil, &Error{File: where, Field: field, Err: errors.New("want an outcome index or a probability vector")}
		}
		d[name] = Evidence{Index: -1, Probs: probs}
	}
	return d, nil
}

func shortName(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// CheckData validates d against the model: every name a categorical
// variable, every index in range, every vector a distribution of the
// variable's size. Errors name where, the variable and the fault.
func (m *Model) CheckData(where string, d Data) error {
	for _, name := range sortedNames(d) {
		ev := d[name]
		field := fmt.Sprintf("%q", shortName(name))
		v, ok := m.Graph.Variable(name)
		if !ok {
			return &Error{File: where, Field: field, Err: errors.New("no variable of that name in the model")}
		}
		if v.Family() != expfam.CategoricalFamily {
			return &Error{File: where, Field: field, Err: fmt.Errorf("a %s variable cannot be observed (only categorical ones)", v.Family())}
		}
		k := len(v.Stats())
		if ev.Probs == nil {
			if ev.Index < 0 || ev.Index >= k {
				return &Error{File: where, Field: field, Err: fmt.Errorf("index %d out of range [0, %d)", ev.Index, k)}
			}
			continue
		}
		if len(ev.Probs) != k {
			return &Error{File: where, Field: field, Err: fmt.Errorf("%d probabilities, want %d (the variable's size)", len(ev.Probs), k)}
		}
		if err := expfam.ValidateDistribution(ev.Probs, 1e-6); err != nil {
			return &Error{File: where, Field: field, Err: fmt.Errorf("%v", trimPrefix(err))}
		}
	}
	return nil
}

func sortedNames(d Data) []string {
	names := make([]string, 0, len(d))
	for k := range d {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Infer runs the model on one data set without rebuilding its graph:
// every variable gets back the model file's observed value, the data's
// evidence is clamped on top, every hidden posterior is reset to where a
// fresh build starts it (ffg.Graph.ResetPosteriors), and inference runs
// with the model's settings. The result equals that of a fresh build of
// the file with those observed values. where names the data set in errors
// ("data.jsonl:3"); a data set that does not fit the model changes
// nothing.
func (m *Model) Infer(ctx context.Context, where string, d Data) (*schedule.Result, error) {
	if err := m.CheckData(where, d); err != nil {
		return nil, err
	}
	for i, v := range m.Variables {
		ev := m.evidence[i]
		if e, ok := d[v.Name()]; ok {
			ev = e
		}
		var err error
		switch {
		case ev.Probs != nil:
			err = v.ObserveSoft(ev.Probs)
		case ev.Index >= 0:
			err = v.Observe(ev.Index)
		default:
			if v.Observed() {
				v.Unobserve()
			}
		}
		if err != nil {
			return nil, &Error{File: where, Field: fmt.Sprintf("%q", shortName(v.Name())), Err: err}
		}
	}
	if err := m.Graph.ResetPosteriors(); err != nil {
		return nil, m.RunError(err)
	}
	res, err := schedule.Run(ctx, m.Graph, &m.Settings)
	if err != nil {
		return res, m.RunError(err)
	}
	return res, nil
}
