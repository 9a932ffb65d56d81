package fit

import (
	"encoding/csv"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/arbor-ai/arbor/agent"
)

// ParamsTable is a table of each subject's parameter values: the true
// parameters of a simulation (`simulate --params`), or the estimates of a
// fit as `fit --csv` writes them, whose SD and statistics columns it
// keeps apart.
type ParamsTable struct {
	// File names the source in errors.
	File string
	// Names are the parameters' names in the agent's order.
	Names []string
	// Subjects and Lines name each row and its line of the file.
	Subjects []string
	Lines    []int
	// Values holds each subject's values by name; SD the SDs on the
	// natural scale of a fit's NAME_sd columns (NaN for NA; nil without
	// such a column).
	Values, SD []map[string]float64
}

// FitStatColumns are the columns of `fit --csv` after the parameters and
// their SDs, which ReadParamsTable ignores.
var FitStatColumns = []string{"log_likelihood", "log_evidence", "aic", "bic", "n_choices", "converged", "reason"}

// ReadParamsTable reads a CSV table with the header subject,NAME,... (each
// NAME a parameter of ps) and one row per subject; the output of `fit
// --csv` is read as it is written: a column NAME_sd beside NAME holds
// NAME's SD, and the statistics columns (FitStatColumns) are ignored.
// Every value is checked against its parameter's domain
// (agent.CheckParams, ClosedLearning). Errors are one line, prefixed
// "fit: FILE:LINE:" where a line is at fault (FILE is file).
func ReadParamsTable(data, file string, ps []agent.Param) (*ParamsTable, error) {
	r := csv.NewReader(strings.NewReader(strings.TrimPrefix(data, "\ufeff"))) // a UTF-8 BOM, as --data takes
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("fit: %s: %v", file, err)
	}
	if len(recs) < 2 {
		return nil, fmt.Errorf("fit: %s: want a header (subject,NAME,...) and one row per subject", file)
	}
	head := recs[0]
	if strings.TrimSpace(head[0]) != "subject" {
		return nil, fmt.Errorf("fit: %s:1: column 1 is %q, want subject", file, head[0])
	}
	trimmed := make([]string, len(head))
	for j, h := range head {
		trimmed[j] = strings.TrimSpace(h)
	}
	seen := map[string]bool{}
	var names []string
	cols, sdCols := map[string]int{}, map[string]int{}
	for j, h := range trimmed[1:] {
		if base, ok := strings.CutSuffix(h, "_sd"); ok && slices.Contains(trimmed[1:], base) {
			sdCols[base] = j + 1
			continue
		}
		if slices.Contains(FitStatColumns, h) {
			continue
		}
		if _, err := agent.FindParam(ps, h); err != nil {
			return nil, fmt.Errorf("fit: %s:1: column %s: %w", file, h, err)
		}
		if seen[h] {
			return nil, fmt.Errorf("fit: %s:1: column %s appears twice", file, h)
		}
		seen[h] = true
		names = append(names, h)
		cols[h] = j + 1
	}
	t := &ParamsTable{File: file}
	// The columns in the agent's order, as --draw writes them.
	for _, p := range ps {
		if seen[p.Name] {
			t.Names = append(t.Names, p.Name)
		}
	}
	given := map[string]bool{}
	for i, rec := range recs[1:] {
		line := i + 2
		if rec[0] == "" {
			return nil, fmt.Errorf("fit: %s:%d: column subject: empty", file, line)
		}
		if given[rec[0]] {
			return nil, fmt.Errorf("fit: %s:%d: subject %s appears twice", file, line, rec[0])
		}
		given[rec[0]] = true
		v := map[string]float64{}
		for _, n := range names {
			x, err := strconv.ParseFloat(strings.TrimSpace(rec[cols[n]]), 64)
			if err != nil {
				return nil, fmt.Errorf("fit: %s:%d: column %s: %q is not a number", file, line, n, rec[cols[n]])
			}
			v[n] = x
		}
		if err := agent.CheckParams(ps, v, agent.ClosedLearning); err != nil {
			return nil, fmt.Errorf("fit: %s:%d: %w", file, line, err)
		}
		var sd map[string]float64
		if len(sdCols) > 0 {
			sd = map[string]float64{}
			for n, j := range sdCols {
				x, err := strconv.ParseFloat(strings.TrimSpace(rec[j]), 64)
				if s := strings.TrimSpace(rec[j]); s == "NA" {
					x, err = math.NaN(), nil
				}
				if err != nil || x < 0 || math.IsInf(x, 0) {
					return nil, fmt.Errorf("fit: %s:%d: column %s_sd: %q, want an SD (a finite number >= 0, or NA)", file, line, n, rec[j])
				}
				sd[n] = x
			}
		}
		t.Subjects, t.Lines = append(t.Subjects, rec[0]), append(t.Lines, line)
		t.Values, t.SD = append(t.Values, v), append(t.SD, sd)
	}
	return t, nil
}

// DrawPosterior returns subject k's values drawn from its Laplace
// posterior: each parameter independently (a fit's CSV holds no
// correlations) from N(θ̂, SDθ²) on its fitting scale, θ̂ the transform
// of the value and SDθ = SD / |dx/dθ| at θ̂ (the delta method that made
// the SD, inverted), mapped back. The draws come from ParamRand(seed, k),
// the stream of DrawParams. It returns an error, naming the file, the line
// and the column, where a parameter has no SD.
func (t *ParamsTable) DrawPosterior(ps []agent.Param, seed uint64, k int) (map[string]float64, error) {
	rng := ParamRand(seed, k)
	out := make(map[string]float64, len(t.Names))
	for _, n := range t.Names {
		p, err := agent.FindParam(ps, n)
		if err != nil {
			return nil, fmt.Errorf("fit: %w", err)
		}
		sd, ok := t.SD[k][n]
		if !ok || t.SD[k] == nil {
			return nil, fmt.Errorf("fit: %s:%d: no column %s_sd to draw %s from (want the output of fit --csv)", t.File, t.Lines[k], n, n)
		}
		if math.IsNaN(sd) {
			return nil, fmt.Errorf("fit: %s:%d: column %s_sd: NA (the fit had no Laplace approximation to draw from)", t.File, t.Lines[k], n)
		}
		theta := p.Domain.Transform(t.Values[k][n])
		jac := math.Abs(p.Domain.Jacobian(theta))
		sdTheta := 0.0
		if sd > 0 && jac > 0 {
			sdTheta = sd / jac
		}
		out[n] = p.Domain.Inverse(theta + sdTheta*rng.NormFloat64())
	}
	if err := agent.CheckParams(ps, out, agent.ClosedLearning); err != nil {
		return nil, fmt.Errorf("fit: %s:%d: a posterior draw: %w", t.File, t.Lines[k], err)
	}
	return out, nil
}
