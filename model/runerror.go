package model

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/schedule"
)

// RunError turns an error of schedule.Run on m's graph into an *Error that
// names the file and the field at fault when the fault is the model's:
//
//   - an update that produced an invalid posterior (*ffg.NaNError), for
//     instance evidence that every state of a hidden variable makes
//     impossible, names that variable;
//   - a free energy that is not finite (*schedule.EnergyError): a factor
//     whose bound variables are all observed and whose average energy is
//     +Inf means the evidence has probability 0 under the model, and names
//     the observed field of the factor's output variable; another factor, or
//     a variable whose entropy overflowed, is named itself.
//
// Any other error (cancellation, a bug) is returned wrapped with the file
// name, and is not an *Error. A nil *Model is taken as the zero Model, whose
// errors name no file.
func (m *Model) RunError(err error) error {
	if err == nil {
		return nil
	}
	if m == nil {
		m = &Model{}
	}
	var ne *ffg.NaNError
	if errors.As(err, &ne) {
		field := "variables"
		for i, v := range m.Variables {
			if `"`+v.Name()+`"` == ne.Variable { // ffg quotes names without escaping
				field = m.variableField(i)
			}
		}
		return apiError(&Error{File: m.Name, Field: field, Err: fmt.Errorf("inference produced an invalid posterior: %s", ne.Detail)})
	}
	var le *ffg.LoopError
	if errors.As(err, &le) {
		return apiError(&Error{File: m.Name, Field: "settings.method", Err: fmt.Errorf("sum-product needs the discrete variables to form a tree, and they form a loop: %s (use \"vmp\", break the loop, or ask for approximate loopy belief propagation with \"loopy\": true)", strings.Join(le.Loop, " - "))})
	}
	var ee *schedule.EnergyError
	if !errors.As(err, &ee) {
		if m.Name == "" {
			return apiError(err)
		}
		return fmt.Errorf("model: %s: %w", m.Name, err)
	}
	switch {
	case ee.Factor != nil:
		field := "factors"
		for i, fn := range m.Factors {
			if fn == ee.Factor && i < len(m.factorFields) {
				field = m.factorFields[i] + m.loopValuesOf(i)
			}
		}
		if out, ok := m.impossibleEvidence(ee.Factor, ee.Term); ok {
			return apiError(&Error{File: m.Name, Field: m.variableField(out) + ".observed",
				Err: fmt.Errorf("evidence has probability 0 under the model (%s gives it probability 0)", field)})
		}
		return apiError(&Error{File: m.Name, Field: field,
			Err: fmt.Errorf("average energy E_q[-ln f] is %v after sweep %d, so the free energy cannot be computed (numbers too large for float64?)", ee.Term, ee.Sweep)})
	case ee.Variable != nil:
		field := "variables"
		for i, v := range m.Variables {
			if v == ee.Variable {
				field = m.variableField(i)
			}
		}
		return apiError(&Error{File: m.Name, Field: field,
			Err: fmt.Errorf("entropy of the posterior is %v after sweep %d, so the free energy cannot be computed (numbers too large for float64?)", ee.Term, ee.Sweep)})
	}
	return apiError(&Error{File: m.Name, Err: fmt.Errorf("free energy is %v after sweep %d: its terms are finite but their sum is not (numbers too large for float64?)", ee.F, ee.Sweep)})
}

// impossibleEvidence reports whether a factor's average energy term, +Inf,
// comes from evidence alone: every variable bound to the factor is an
// observed categorical, so no posterior can avoid the zero. It returns the
// index in m.Variables of the factor's output variable.
func (m *Model) impossibleEvidence(f *ffg.FactorNode, term float64) (int, bool) {
	if !math.IsInf(term, 1) {
		return 0, false
	}
	for _, v := range f.Variables() {
		if v.Family() != expfam.CategoricalFamily || !v.Observed() {
			return 0, false
		}
	}
	out := f.Variables()[0]
	for i, v := range m.Variables {
		if v == out {
			return i, true
		}
	}
	return 0, false
}

// variableField is the field name of variable i, as in load errors.
func (m *Model) variableField(i int) string {
	j := i
	if i < len(m.varFile) {
		j = int(m.varFile[i]) // an element of an array: the array's index in the file
	}
	return fmt.Sprintf("variables[%d] (%q)", j, m.Variables[i].Name())
}
