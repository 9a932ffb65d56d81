package nodes

import (
	"fmt"

	"github.com/arbor-ai/arbor/messages"
)

// conjugate is the part shared by every conjugate node: its interfaces and
// its multilinear exponential-family form, from which both the messages and
// the average energy are derived (docs/architecture.md).
type conjugate struct {
	kind string
	ifs  []messages.Interface
	form *messages.Multilinear
}

// Kind returns the node type.
func (c *conjugate) Kind() string { return c.kind }

// Interfaces returns the node's interfaces; interface 0 is its output.
func (c *conjugate) Interfaces() []messages.Interface { return c.ifs }

// Rules names the interfaces the node has message rules for: all of them.
func (c *conjugate) Rules() []string {
	out := make([]string, len(c.ifs))
	for i, it := range c.ifs {
		out[i] = it.Name
	}
	return out
}

// Message writes the VMP message to interface k, derived from the
// multilinear form (messages.Multilinear.Message).
func (c *conjugate) Message(dst []float64, k int, stats [][]float64) error {
	if err := c.checkStats(stats); err != nil {
		return err
	}
	if k < 0 || k >= len(c.ifs) {
		return &messages.NoRuleError{Factor: c.kind, Interface: fmt.Sprintf("#%d", k), Rules: c.Rules()}
	}
	c.form.Message(dst, k, stats)
	return nil
}

// AverageEnergy returns E_q[-ln f], minus the form's full contraction.
func (c *conjugate) AverageEnergy(stats [][]float64) float64 {
	return -c.form.ExpectedLog(stats)
}

func (c *conjugate) checkStats(stats [][]float64) error {
	if len(stats) != len(c.ifs) {
		return fmt.Errorf("nodes: %s: %d neighbour statistics for %d interfaces", c.kind, len(stats), len(c.ifs))
	}
	return nil
}

// Form returns the node's multilinear form (ln f as a contraction of a
// weight tensor with the neighbours' statistics), from which the engine
// derives its VMP messages and, for sum-product, its potential.
func (c *conjugate) Form() *messages.Multilinear { return c.form }
