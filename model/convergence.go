package model

import (
	"fmt"
	"math"
)

// DefaultParamTolerance is the second test of convergence of a model
// file's run (schedule.Settings.ParamTolerance) when its settings give
// no "param_tolerance": the run stops when F changes by less than the
// tolerance and no posterior's natural parameters moved by more than
// 1e-5 of their size in the last sweep. With it every example of
// examples/models gives byte for byte the output it gave under F's test alone.
const DefaultParamTolerance = 1e-5

// paramTolerance reads "param_tolerance" (a finite number > 0) or sets
// the default.
func paramTolerance(m *Model, ss *settingsSpec) error {
	m.Settings.ParamTolerance = DefaultParamTolerance
	if ss == nil || !ss.ParamTolerance.set {
		return nil
	}
	x, err := ss.ParamTolerance.scalar("settings.param_tolerance")
	if err != nil {
		return &Error{Err: err}
	}
	if !(x > 0) || math.IsInf(x, 0) {
		return &Error{Field: "settings.param_tolerance", Err: fmt.Errorf("%v, want a finite number > 0", x)}
	}
	m.Settings.ParamTolerance = x
	return nil
}
