package fit

import (
	"slices"

	"github.com/arbor-ai/arbor/behaviour"
	"github.com/arbor-ai/arbor/pomdp"
)

// ChoiceRate is the share of the choices of each action in a cell of
// recorded behaviour, a summary statistic of a posterior predictive
// check: by trial and step (Modality -1), or at a step by the outcome a
// modality showed just before the choice (Trial 0: every trial).
type ChoiceRate struct {
	Trial, Step       int
	Modality, Outcome int
	// Choices counts the choices in the cell (missed responses left out);
	// Rates holds the share of each joint action (pomdp.Model's action
	// order), NaN-free: zeros when Choices is 0.
	Choices int
	Rates   []float64
}

// ChoiceRates returns the choice rates of recs under model m: by trial and
// step, in trial then step order, and by step, modality and outcome, in
// that order. Cells without a choice are left out.
func ChoiceRates(m *pomdp.Model, recs []behaviour.SubjectRecord) (byTrial, byOutcome []ChoiceRate) {
	nu := m.NumActions()
	type key struct{ trial, step, mod, out int }
	counts := map[key][]int{}
	add := func(k key, u int) {
		c, ok := counts[k]
		if !ok {
			c = make([]int, nu)
			counts[k] = c
		}
		c[u]++
	}
	for _, rec := range recs {
		for _, tr := range rec.Trials {
			for s, u := range tr.Actions {
				if u < 0 || u >= nu {
					continue
				}
				add(key{tr.Trial, s, -1, -1}, u)
				if s < len(tr.Outcomes) {
					for mod, o := range tr.Outcomes[s] {
						add(key{0, s, mod, o}, u)
					}
				}
			}
		}
	}
	keys := make([]key, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int {
		for _, d := range [][2]int{{a.trial, b.trial}, {a.step, b.step}, {a.mod, b.mod}, {a.out, b.out}} {
			if d[0] != d[1] {
				return d[0] - d[1]
			}
		}
		return 0
	})
	for _, k := range keys {
		c := counts[k]
		r := ChoiceRate{Trial: k.trial, Step: k.step, Modality: k.mod, Outcome: k.out, Rates: make([]float64, nu)}
		for _, n := range c {
			r.Choices += n
		}
		for u, n := range c {
			r.Rates[u] = float64(n) / float64(r.Choices)
		}
		if k.mod < 0 {
			byTrial = append(byTrial, r)
		} else {
			byOutcome = append(byOutcome, r)
		}
	}
	return byTrial, byOutcome
}
