package pomdp

import "fmt"

// AgentView returns the model as an agent holding it believes it before
// any evidence: every A, B and D that has Dirichlet concentrations (a, b,
// d) replaced by their expectation, E[a] normalised per column. A file may
// give both A and a: A is then the world's likelihood (Process samples
// from it) and a the agent's prior, and every planner plans with E[a]. A
// model without concentrations is returned as it is. A nil or invalid
// model is Check's error.
func (m *Model) AgentView() (*Model, error) {
	if err := Check(m); err != nil {
		return nil, apiError(err)
	}
	la, lb, ld := m.Learnable()
	if !la && !lb && !ld {
		return m, nil
	}
	v := *m
	v.factors = append([]factor(nil), m.factors...)
	v.mods = append([]modality(nil), m.mods...)
	for i := range v.mods {
		if md := &v.mods[i]; md.concA != nil {
			md.a = expectation(md.concA, []int{md.no, len(md.concA) / md.no})
		}
	}
	for i := range v.factors {
		f := &v.factors[i]
		if f.concB != nil {
			f.b = expectation(f.concB, []int{f.nu, f.ns, f.ns})
		}
		if f.concD != nil {
			f.d = expectation(f.concD, []int{f.ns})
		}
	}
	v.work, v.valid = 0, false
	if err := v.finish(); err != nil {
		return nil, fmt.Errorf("pomdp: the agent's view: %w", err)
	}
	return &v, nil
}
