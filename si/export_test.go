package si

// Branches returns, for every expanded action of every node the last
// search branched, the probabilities of its kept outcomes.
func (p *Planner) Branches() [][]float64 {
	var out [][]float64
	for id := range p.stage {
		if p.stage[id] < branched {
			continue
		}
		for u := range p.nu {
			k := id*p.nu + u
			if p.kept[k] {
				out = append(out, append([]float64(nil), p.oprob[p.olo[k]:p.ohi[k]]...))
			}
		}
	}
	return out
}
