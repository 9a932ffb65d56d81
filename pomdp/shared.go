package pomdp

// SharedB returns factor f's transitions B in the layout of FactorB,
// B[(u*|S_f|+next)*|S_f|+prev], without copying: the model's own storage,
// which every agent of the model reads. The caller must not modify it.
// A model's numbers never change after construction, so agents read them
// here instead of each holding a copy (a maze of 1,024 states has a 42 MB
// B). It panics if f is out of range [0, NumFactors()).
func (m *Model) SharedB(f int) []float64 { return m.factorAt("SharedB", f).b }

// SharedA returns modality i's likelihood A in the layout of ModalityA
// without copying (see SharedB). The caller must not modify it. It panics
// if i is out of range [0, NumModalities()).
func (m *Model) SharedA(i int) []float64 { return m.modalityAt("SharedA", i).a }
