package messages

import (
	"fmt"
	"strings"

	"github.com/arbor-ai/arbor/expfam"
)

// NoRuleError is returned when a factor is asked for a message on an
// interface for which it has no rule. It names the factor, the interface
// and the rules that do exist, so the fix is obvious from the message.
type NoRuleError struct {
	Factor    string   // the factor's kind and, when known, its name
	Interface string   // the interface a message was asked for
	Rules     []string // interfaces the factor does have rules for
}

func (e *NoRuleError) Error() string {
	have := "none"
	if len(e.Rules) > 0 {
		have = strings.Join(e.Rules, ", ")
	}
	return fmt.Sprintf("no message rule for factor %s on interface %q (rules exist for: %s)", e.Factor, e.Interface, have)
}

// Interface describes one interface (edge slot) of a factor: its name, the
// family of the variable it binds and that variable's shape.
type Interface struct {
	Name   string
	Family expfam.Family
	Shape  []int
}
