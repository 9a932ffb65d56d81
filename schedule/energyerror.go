package schedule

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/arbor-ai/arbor/ffg"
)

// EnergyError reports a free energy that is not finite (NaN or ±Inf) after
// a sweep, with the first term of F responsible where one is: a factor whose
// average energy E_q[-ln f] is not finite (for instance +Inf when observed
// evidence has probability 0 under a fixed factor), or else a hidden
// variable whose entropy is not finite (parameters beyond what float64
// arithmetic can evaluate). Both are nil when every term is finite but
// their sum overflowed.
type EnergyError struct {
	Sweep    int     // 1-based
	F        float64 // the free energy after that sweep
	Factor   *ffg.FactorNode
	Variable *ffg.Variable
	Term     float64 // the non-finite average energy or entropy
}

func (e *EnergyError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "schedule: sweep %d: free energy is %v", e.Sweep, e.F)
	switch {
	case e.Factor != nil:
		fmt.Fprintf(&b, ": average energy of factor %s is %v", describeFactor(e.Factor), e.Term)
	case e.Variable != nil:
		fmt.Fprintf(&b, ": entropy of variable %s is %v", describeVariable(e.Variable), e.Term)
	}
	return b.String()
}

// describeFactor names a factor node for messages: its kind, its name when
// it has one, and the variables it is bound to, e.g.
// `transition on "o", "s"`.
func describeFactor(f *ffg.FactorNode) string {
	var b strings.Builder
	b.WriteString(f.Factor().Kind())
	if f.Name() != "" {
		b.WriteString(" " + strconv.Quote(f.Name()))
	}
	for i, v := range f.Variables() {
		if i == 0 {
			b.WriteString(" on ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(describeVariable(v))
	}
	return b.String()
}

func describeVariable(v *ffg.Variable) string {
	if v.Name() == "" {
		return "#" + strconv.Itoa(v.ID())
	}
	return strconv.Quote(v.Name())
}

// nonFinite builds the *EnergyError for F = f after sweep it, searching the
// terms of F over scope (nil: the whole graph) in graph order for the first
// non-finite one. It runs only on failure, so it may allocate.
func nonFinite(g *ffg.Graph, scope []*ffg.Variable, it int, f float64) *EnergyError {
	e := &EnergyError{Sweep: it, F: f}
	factors, vars := g.Factors(), g.Variables()
	if scope != nil {
		vars = scope
		factors = nil
		seen := map[*ffg.FactorNode]bool{}
		for _, v := range scope {
			for _, fn := range v.Neighbors(nil) {
				if !seen[fn] {
					seen[fn] = true
					factors = append(factors, fn)
				}
			}
		}
	}
	bad := func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }
	for _, fn := range factors {
		if fn.Removed() {
			continue
		}
		if x := fn.AverageEnergy(); bad(x) {
			e.Factor, e.Term = fn, x
			return e
		}
	}
	for _, v := range vars {
		if v.Removed() {
			continue
		}
		if x := v.Entropy(); bad(x) {
			e.Variable, e.Term = v, x
			return e
		}
	}
	return e
}
