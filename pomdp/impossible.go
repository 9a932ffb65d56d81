package pomdp

import (
	"errors"
	"fmt"
	"strings"

	"github.com/arbor-ai/arbor/internal/jsonread"
)

// ErrImpossibleObservation is wrapped (errors.Is) by the error of Reset,
// Grow or GrowMixed when the model gives the observation probability 0
// given the past. The observation is then not recorded: the past stays as
// it was, with finite beliefs, and the caller knows the step. The error
// names the step, the observation (its outcome in every modality, by name
// when the model has names) and, when one modality alone rules it out,
// that modality, and says what to do: give A (or D at step 0, B after it)
// a nonzero mass there, e.g. a small floor.
//
// PastFilter is exact: the observation is impossible when
// Σ_s P(o | s) P(s | the past) = 0 under the model's A, B and D as given
// (a learned parameter is never 0 there: the filter uses exp E[ln θ]).
// PastVMP floors B, and an A over several factors, at LogFloor, so after
// step 0 the mean field takes finitely any observation that some state of
// every factor can emit: a transition that the model excludes costs
// ln LogFloor = -32, the posteriors stay finite, the free energy too, and
// no error is returned (the floor leaves mass of order LogFloor where B
// excludes it). What it cannot take, and reports with this error, is an
// observation that D (at step 0) and the A over a single factor, neither
// floored, rule out in every state of some factor: every natural
// parameter of that factor's state would be -Inf and its posterior NaN.
var ErrImpossibleObservation = errors.New("pomdp: impossible observation: the model gives it probability 0 given the past")

// impossibleError is an error wrapping ErrImpossibleObservation.
type impossibleError struct{ msg string }

func (e *impossibleError) Error() string { return e.msg }

func (e *impossibleError) Unwrap() error { return ErrImpossibleObservation }

// impossible is the error of observation obs at step t, which modality
// culprit (-1: none) rules out on its own; fix names the parameters to
// change ("A or D").
func (p *Past) impossible(t, obs, culprit int, fix string) error {
	m := p.m
	why := ""
	if culprit >= 0 && (m.factorised || len(m.mods) > 1) {
		md := &m.mods[culprit]
		p.outs = m.DecodeObs(p.outs, obs)
		why = fmt.Sprintf(" (modality %s gives outcome %s probability 0 in every state the past allows)",
			jsonread.Quote(md.name), outcomeText(md, p.outs[culprit]))
	}
	return &impossibleError{fmt.Sprintf("pomdp: step %d: observation %s: the model gives it probability 0 given the past%s; give %s a nonzero mass there, e.g. a small floor",
		t, p.obsText(obs), why, fix)}
}

// obsText describes observation obs: its index and, with several
// modalities or names, every modality's outcome, e.g.
// `5 ("where": "cue", "what": "left")`.
func (p *Past) obsText(obs int) string {
	m := p.m
	p.outs = m.DecodeObs(p.outs, obs)
	if !m.factorised && len(m.mods) == 1 {
		if m.mods[0].outcomes == nil {
			return fmt.Sprint(obs)
		}
		return fmt.Sprintf("%d (%s)", obs, jsonread.Quote(m.OutcomeName(0, obs)))
	}
	parts := make([]string, len(m.mods))
	for i := range m.mods {
		parts[i] = jsonread.Quote(m.ModalityName(i)) + ": " + outcomeText(&m.mods[i], p.outs[i])
	}
	return fmt.Sprintf("%d (%s)", obs, strings.Join(parts, ", "))
}

// outcomeText is outcome o of md: its quoted name, or its index.
func outcomeText(md *modality, o int) string {
	if md.outcomes == nil {
		return fmt.Sprint(o)
	}
	return jsonread.Quote(name(md.outcomes, o))
}

// vmpPossible returns an ErrImpossibleObservation error when the mean
// field cannot take observation obs at step t: for some factor, D (at step
// 0, when it is not learned) and the unfloored A of the modalities over
// that factor alone (not learned) rule out every state. Every other
// message to a state, floored or learned, is finite.
func (p *Past) vmpPossible(obs, t int) error {
	m := p.m
	p.outs = m.DecodeObs(p.outs, obs)
	// allows reports whether modality i (or D, i = -1) leaves state s of
	// factor fi possible.
	allows := func(i, fi, s int) bool {
		if i < 0 {
			return t > 0 || p.facs[fi].dAlpha != nil || m.factors[fi].d[s] > 0
		}
		md := &m.mods[i]
		if len(md.deps) != 1 || md.deps[0] != fi || p.mods[i].aAlpha != nil {
			return true
		}
		return md.a[p.outs[i]*md.size+s] > 0
	}
	for fi := range p.facs {
		ns := m.factors[fi].ns
		possible := false
		for s := 0; s < ns && !possible; s++ {
			possible = allows(-1, fi, s)
			for i := 0; i < len(m.mods) && possible; i++ {
				possible = allows(i, fi, s)
			}
		}
		if possible {
			continue
		}
		culprit := -1
		for i := 0; i < len(m.mods) && culprit < 0; i++ {
			alone := true
			for s := range ns {
				if allows(-1, fi, s) && allows(i, fi, s) {
					alone = false
					break
				}
			}
			if alone {
				culprit = i
			}
		}
		fix := "A"
		if t == 0 {
			fix = "A or D"
		}
		return p.impossible(t, obs, culprit, fix)
	}
	return nil
}
