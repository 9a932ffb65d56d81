package nodetest_test

import (
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/messages"
	"github.com/arbor-ai/arbor/nodes"
	"github.com/arbor-ai/arbor/nodes/nodetest"
)

// skewed wraps a factor and adds delta to one entry of one message, so the
// check must fail: the helper is only worth something if it can.
type skewed struct {
	nodetest.Factor
	k, i  int
	delta float64
}

func (s skewed) Message(dst []float64, k int, stats [][]float64) error {
	if err := s.Factor.Message(dst, k, stats); err != nil {
		return err
	}
	if k == s.k {
		dst[s.i] += s.delta
	}
	return nil
}

func (s skewed) Interfaces() []messages.Interface { return s.Factor.Interfaces() }

func TestCheckMessagesCatchesAWrongMessage(t *testing.T) {
	tr, err := nodes.NewTransition([]float64{0.9, 0.2, 0.1, 0.8}, []int{2, 2})
	if err != nil {
		t.Fatal(err)
	}
	stats := [][]float64{{0.3, 0.7}, {0.6, 0.4}}
	if err := nodetest.CheckMessages(tr, stats, 1e-5, 1e-7); err != nil {
		t.Fatalf("correct node rejected: %v", err)
	}
	for _, k := range []int{0, 1} {
		err := nodetest.CheckMessages(skewed{tr, k, 1, 1e-4}, stats, 1e-5, 1e-7)
		if err == nil || !strings.Contains(err.Error(), "transition") {
			t.Errorf("message to interface %d off by 1e-4 not caught: %v", k, err)
		}
	}
}
