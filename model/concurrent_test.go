package model

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
)

// TestInferConcurrentUse: a Model is one set of posteriors, so two runs on
// one model at once would mix their results; Infer refuses to start while
// another Infer on the same model runs (ConcurrentUseError), and a model
// per goroutine runs data sets in parallel with each result equal to the
// sequential one (run with the race detector, as CI does).
func TestInferConcurrentUse(t *testing.T) {
	const file = `{"variables":[{"name":"r","family":"gamma"},{"name":"x","family":"normal"},
		{"name":"y0","family":"normal"},{"name":"y1","family":"normal"}],
		"factors":[{"node":"gamma","out":"r","shape":2,"rate":2},{"node":"normal","out":"x","mean":0,"precision":0.1},
		{"node":"normal","out":"y0","mean":"x","precision":"r"},{"node":"normal","out":"y1","mean":"x","precision":"r"}],
		"settings":{"iterations":500,"tolerance":1e-12}}`
	data := func(k int) Data {
		a, b := float64(k), float64(k)+0.5
		return Data{"y0": {Index: -1, Value: &a}, "y1": {Index: -1, Value: &b}}
	}
	// The sequential results.
	want := make([]float64, 8)
	m, err := Parse("m.json", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	for k := range want {
		if _, err := m.Infer(context.Background(), "seq", data(k)); err != nil {
			t.Fatal(err)
		}
		want[k] = m.Graph.Variables()[1].Normal().Mean
	}
	// One model per goroutine: the same numbers.
	var wg sync.WaitGroup
	got := make([]float64, len(want))
	errs := make([]error, len(want))
	for k := range want {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mk, err := Parse("m.json", []byte(file))
			if err == nil {
				_, err = mk.Infer(context.Background(), fmt.Sprint(k), data(k))
			}
			if err == nil {
				got[k] = mk.Graph.Variables()[1].Normal().Mean
			}
			errs[k] = err
		}()
	}
	wg.Wait()
	for k := range want {
		if errs[k] != nil || got[k] != want[k] {
			t.Errorf("data set %d on its own model: E[x] = %v (%v), sequential %v", k, got[k], errs[k], want[k])
		}
	}
	// One model shared by 8 goroutines: every call either runs alone or
	// is refused; none returns another's result or a spurious fault.
	var mu sync.Mutex
	ran, refused := 0, 0
	for k := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				_, err := m.Infer(context.Background(), fmt.Sprint(k), data(k))
				var cu *ConcurrentUseError
				mu.Lock()
				switch {
				case err == nil:
					ran++
				case errors.As(err, &cu):
					refused++
				default:
					t.Errorf("goroutine %d: %v", k, err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if ran == 0 || ran+refused != 160 {
		t.Errorf("%d runs and %d refusals of 160 calls", ran, refused)
	}
	t.Logf("shared model: %d runs, %d refused", ran, refused)
}
