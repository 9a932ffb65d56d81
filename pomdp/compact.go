package pomdp

import "math"

// compact is a column-stochastic matrix (a B_u of a factor, or the A of a
// modality over one factor) stored column by column as the column's
// smallest value, its background, plus the entries above it: the columns
// of a maze's A and B are one large value over a shared noise value, and
// those of a deterministic matrix one 1 over zeros (the background 0: a
// sparse matrix). finish stores a matrix so when that is less work than
// the dense product (newCompact), and the kernels of Stepper use it.
//
// Every deviation is ≥ 0, so the product sums non-negative terms only, as
// the dense product does: an entry that is 0 in the dense product is 0
// here, and none is negative.
type compact struct {
	rows  int
	exact bool      // every background is 0: the products are the dense ones bit for bit
	bg    []float64 // the background of every column; nil when all are bgAll
	bgAll float64
	// The deviations above the background, column by column: column j's
	// are row[start[j]:start[j+1]] and val[...]; start is nil when every
	// column has exactly one (then row[j], val[j]).
	start []int32
	row   []int32
	val   []float64
}

// newCompact returns matrix x (rows × cols, row-major: x[i*cols+j], column
// j the distribution of the column) in compact form, or nil when the dense
// product is less work: the compact product costs a dot product with the
// backgrounds (cols), a fill (rows) and a scatter of the deviations
// (counted twice: a load and a store each), the dense one rows·cols.
func newCompact(x []float64, rows, cols int) *compact {
	if rows < 2 || cols < 1 || rows*cols < 16 {
		return nil
	}
	// Row by row, as x is laid out (a large B is read once per pass, not
	// once per column): the minima, then the deviations per column.
	// The minima on the stack for a small matrix, so that one stored
	// dense (a model's expected parameters, made again every trial) costs
	// no allocation.
	var small [64]float64
	mins := small[:0]
	if cols > len(small) {
		mins = make([]float64, 0, cols)
	}
	mins = append(mins, x[:cols]...)
	for i := 1; i < rows; i++ {
		for j, v := range x[i*cols : (i+1)*cols] {
			if v < mins[j] {
				mins[j] = v
			}
		}
	}
	nnz := 0
	for i := range rows {
		for j, v := range x[i*cols : (i+1)*cols] {
			if v != mins[j] {
				nnz++
			}
		}
	}
	if cols+rows+2*nnz >= rows*cols {
		return nil
	}
	bg := append([]float64(nil), mins...)
	start := make([]int32, cols+1) // deviations of column j at start[j+1], then their offsets
	for i := range rows {
		for j, v := range x[i*cols : (i+1)*cols] {
			if v != bg[j] {
				start[j+1]++
			}
		}
	}
	c := &compact{rows: rows, bg: bg, bgAll: bg[0]}
	uniform, one := true, true
	for j := range cols {
		uniform = uniform && math.Float64bits(bg[j]) == math.Float64bits(bg[0])
		one = one && start[j+1] == 1
		start[j+1] += start[j]
	}
	if uniform {
		c.bg = nil
		c.exact = bg[0] == 0
	}
	c.row = make([]int32, nnz)
	c.val = make([]float64, nnz)
	pos := make([]int32, cols)
	copy(pos, start[:cols])
	for i := range rows { // rows ascending within each column
		for j, v := range x[i*cols : (i+1)*cols] {
			if v != bg[j] {
				c.row[pos[j]] = int32(i)
				c.val[pos[j]] = v - bg[j]
				pos[j]++
			}
		}
	}
	if !one {
		c.start = start
	}
	return c
}

// mul sets dst = M x: every entry the backgrounds' share β = Σ_j bg_j x_j,
// then each column's deviations scaled by x_j. With every background 0
// (exact) each entry is the dense product's sum without its zero terms,
// in the same order: the same number bit for bit. It does not allocate.
func (c *compact) mul(dst, x []float64) {
	beta := 0.0
	switch {
	case c.bg != nil:
		beta = dot(c.bg, x)
	case c.bgAll != 0:
		beta = c.bgAll * sum(x)
	}
	for i := range dst {
		dst[i] = beta
	}
	if c.start == nil {
		row, val := c.row[:len(x)], c.val[:len(x)]
		for j, xj := range x {
			dst[row[j]] += val[j] * xj
		}
		return
	}
	for j, xj := range x {
		lo, hi := c.start[j], c.start[j+1]
		val := c.val[lo:hi]
		for k, r := range c.row[lo:hi] {
			dst[r] += val[k] * xj
		}
	}
}

// sum returns Σ x with four running sums (the chain of one sum would wait
// on every addition's latency).
func sum(x []float64) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i]
		s1 += x[i+1]
		s2 += x[i+2]
		s3 += x[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// dot returns Σ a[i] x[i] with four running sums; len(a) ≥ len(x).
func dot(a, x []float64) float64 {
	a = a[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += a[i] * x[i]
		s1 += a[i+1] * x[i+1]
		s2 += a[i+2] * x[i+2]
		s3 += a[i+3] * x[i+3]
	}
	for ; i < len(x); i++ {
		s0 += a[i] * x[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// compactTensors stores in compact form every B_u of every factor and the
// A of every modality over one factor where that is less work (finish).
func (m *Model) compactTensors() {
	for i := range m.factors {
		f := &m.factors[i]
		ns := f.ns
		f.bc = make([]*compact, f.nu)
		for c := range f.nu {
			f.bc[c] = newCompact(f.b[c*ns*ns:(c+1)*ns*ns], ns, ns)
		}
	}
	for i := range m.mods {
		md := &m.mods[i]
		md.ac = nil
		if len(md.deps) == 1 {
			md.ac = newCompact(md.a, md.no, md.size)
		}
	}
	m.fused = newFusion(m)
}

// fusion is A B_u as one map from the previous state to the outcomes, for
// a model of one factor and one modality whose A and every B_u are compact
// with one background each and one deviation per column (a maze): with
// B_u = bgB 1 1ᵀ + Σ_j devB_j e_(rB_u(j)) e_jᵀ and A likewise,
//
//	Q(o) = bgA Σ_s B_u x + bgB Σx · cA[o] + Σ_(j: oB_u(j) = o) wB_u[j] x_j,
//	Σ_s B_u x = |S| bgB Σx + Σ_j devB_j x_j,
//	H[A] · B_u x = bgB Σx · ΣH + Σ_j hB_u[j] x_j,
//
// cA[o] = Σ_(s: rA(s) = o) devA_s, oB_u(j) = rA(rB_u(j)), wB_u[j] =
// devA_(rB_u(j)) devB_j and hB_u[j] = H[A](rB_u(j)) devB_j: the step cost of
// a child without its belief (Stepper.ChildCost), one pass over x.
type fusion struct {
	ns       int
	bgA, bgB float64
	cA       []float64
	sumH     float64
	per      []fusedControl // per control
}

type fusedControl struct {
	dev []float64 // devB_j
	out []int32   // oB_u(j)
	w   []float64 // wB_u[j]
	h   []float64 // hB_u[j]
}

// newFusion returns the fusion of m's A and B, or nil where m is not of
// that form.
func newFusion(m *Model) *fusion {
	if len(m.factors) != 1 || len(m.mods) != 1 || len(m.prefs) > 0 {
		return nil
	}
	f, md := &m.factors[0], &m.mods[0]
	a := md.ac
	if a == nil || a.bg != nil || a.start != nil || a.exact {
		return nil
	}
	fu := &fusion{ns: f.ns, bgA: a.bgAll, cA: make([]float64, md.no), per: make([]fusedControl, f.nu)}
	for s, r := range a.row {
		fu.cA[r] += a.val[s]
	}
	for _, h := range md.hA {
		fu.sumH += h
	}
	for c, b := range f.bc {
		if b == nil || b.bg != nil || b.start != nil || b.exact {
			return nil
		}
		if c == 0 {
			fu.bgB = b.bgAll
		} else if math.Float64bits(b.bgAll) != math.Float64bits(fu.bgB) {
			return nil
		}
		fc := fusedControl{dev: b.val, out: make([]int32, f.ns), w: make([]float64, f.ns), h: make([]float64, f.ns)}
		for j, r := range b.row {
			fc.out[j] = a.row[r]
			fc.w[j] = a.val[r] * b.val[j]
			fc.h[j] = md.hA[r] * b.val[j]
		}
		fu.per[c] = fc
	}
	return fu
}

// OnePass reports whether ChildCost computes a child's step cost without
// its belief (the model's A and B allow it; without novelty weights).
func (st *Stepper) OnePass() bool { return st.m.fused != nil }

// ChildCost returns StepCost(B_u prev, w): the step cost of the child of
// belief prev through action u. Where the model is one factor and one
// modality whose A and B are a background plus one deviation per column
// (a maze) it computes the child's predicted outcomes from prev in one
// pass, without the child's belief (fusion); elsewhere it is Propagate
// into a buffer and StepCost. It panics as Propagate does.
func (st *Stepper) ChildCost(prev []float64, u int, w []float64) (risk, amb, nov float64) {
	m := st.m
	fu := m.fused
	if fu == nil || w != nil {
		st.Propagate(st.child, prev, u)
		return st.StepCost(st.child, w)
	}
	if len(prev) != m.ns {
		badBelief("ChildCost", m, prev)
	}
	if uint(u) >= uint(m.nu) {
		badIndex("ChildCost", "action", u, m.nu)
	}
	fc := &fu.per[u]
	x := prev[:fu.ns]
	dev, out, wt, h := fc.dev[:len(x)], fc.out[:len(x)], fc.w[:len(x)], fc.h[:len(x)]
	qo := st.qo[:len(fu.cA)]
	clear(qo)
	// Three sums, each in two halves: six chains of additions that the
	// processor runs side by side.
	var sx0, sx1, t0, t1, h0, h1 float64
	j := 0
	for ; j+2 <= len(x); j += 2 {
		v0, v1 := x[j], x[j+1]
		sx0 += v0
		sx1 += v1
		t0 += dev[j] * v0
		t1 += dev[j+1] * v1
		h0 += h[j] * v0
		h1 += h[j+1] * v1
		qo[out[j]] += wt[j] * v0
		qo[out[j+1]] += wt[j+1] * v1
	}
	if j < len(x) {
		v := x[j]
		sx0 += v
		t0 += dev[j] * v
		h0 += h[j] * v
		qo[out[j]] += wt[j] * v
	}
	hx := h0 + h1
	betaB := fu.bgB * (sx0 + sx1)
	base := fu.bgA * (float64(fu.ns)*betaB + (t0 + t1))
	for o := range qo {
		qo[o] += base + betaB*fu.cA[o]
	}
	md := &m.mods[0]
	return riskTerms(qo, md.logC), betaB*fu.sumH + hx, 0
}

// Stepper computes the steps of the expected free energy (Propagate and
// StepCost) with the model's compact tensors: the columns of A and B that
// are a background value plus a few larger entries (a maze's noise, or a
// deterministic matrix's zeros) cost their deviations rather than their
// size. Where a matrix is stored dense, or sparse (its background 0), its
// numbers are Propagate's and StepCost's bit for bit; where a background
// is above 0 they differ by the rounding of other orders of addition and
// of fastLog (docs/pomdp.md, "Compact tensors").
// A Stepper holds its own buffer: it is not safe for concurrent use (make
// one per goroutine); the model it reads is shared.
type Stepper struct {
	m     *Model
	qo    []float64 // a modality's predicted outcomes
	child []float64 // ChildCost's belief where the model has no fusion
}

// NewStepper returns a Stepper for model m. It panics if m is nil or not a
// valid model (Check): a programming error.
func NewStepper(m *Model) *Stepper {
	if Check(m) != nil {
		panic("pomdp: NewStepper: " + noModel)
	}
	most := 0
	for i := range m.mods {
		most = max(most, m.mods[i].no)
	}
	// One array, with a cache line to spare at both ends: the buffers are
	// written at every step, and two goroutines' Steppers must not share
	// a line.
	buf := make([]float64, 8+most+m.ns+8)[8:]
	return &Stepper{m: m, qo: buf[:most:most], child: buf[most : most+m.ns : most+m.ns]}
}

// Model returns the model of the Stepper.
func (st *Stepper) Model() *Model { return st.m }

// Retarget makes the Stepper step m instead, keeping its buffers, and
// reports true, when m has the states and the largest modality of the
// Stepper's model (a learned model's expectation of another trial);
// otherwise it changes nothing and reports false. It panics if m is not a
// valid model, as NewStepper does.
func (st *Stepper) Retarget(m *Model) bool {
	if Check(m) != nil {
		panic("pomdp: Stepper.Retarget: " + noModel)
	}
	most := 0
	for i := range m.mods {
		most = max(most, m.mods[i].no)
	}
	if m.ns != st.m.ns || most != len(st.qo) {
		return false
	}
	st.m = m
	return true
}

// Propagate is Propagate with the compact tensors: next = B_u prev. It
// panics as Propagate does.
func (st *Stepper) Propagate(next, prev []float64, u int) {
	m := st.m
	if len(prev) != m.ns {
		badBelief("Propagate", m, prev)
	}
	if len(next) != m.ns {
		badLen("Propagate", "next", len(next), m.ns)
	}
	if uint(u) >= uint(m.nu) {
		badIndex("Propagate", "action", u, m.nu)
	}
	for i := range m.factors {
		f := &m.factors[i]
		ns := f.ns
		c := (u / f.stride) % f.nu
		pv := prev[f.off : f.off+ns]
		nx := next[f.off : f.off+ns]
		if bc := f.bc[c]; bc != nil {
			bc.mul(nx, pv)
			continue
		}
		bu := f.b[c*ns*ns : (c+1)*ns*ns]
		for i := range nx {
			row := bu[i*ns : (i+1)*ns]
			v := 0.0
			for j, p := range row {
				v += p * pv[j]
			}
			nx[i] = v
		}
	}
}

// StepCost is StepCost with the compact tensors: the predicted outcomes
// of a modality over one factor are one compact product. Where A has a
// background above 0 the logarithms are fastLog's and the dot products
// are summed four ways; elsewhere the numbers are StepCost's bit for bit.
// It panics as StepCost does.
func (st *Stepper) StepCost(qs, w []float64) (risk, amb, nov float64) {
	m := st.m
	if !m.stepArgs(qs, w) {
		badStep("StepCost", m, qs, w)
	}
	if len(m.prefs) > 0 {
		return m.prefStepCost(qs, w)
	}
	for i := range m.mods {
		md := &m.mods[i]
		var wm []float64
		if w != nil {
			wm = w[md.wOff : md.wOff+md.no*md.size]
		}
		if md.ac == nil {
			r, a, n := m.stepCost(md, qs, wm)
			risk += r
			amb += a
			nov += n
			continue
		}
		f := &m.factors[md.deps[0]]
		q := qs[f.off : f.off+f.ns]
		qo := st.qo[:md.no]
		md.ac.mul(qo, q)
		logC := md.logC[:len(qo)]
		if md.ac.exact {
			// The dense numbers bit for bit: the same logarithm and sums
			// in the order of stepCost.
			for o, v := range qo {
				if v > 0 {
					risk += v * (math.Log(v) - logC[o])
				}
				if wm != nil {
					nov += v * m.expect(md, wm[o*md.size:(o+1)*md.size], qs)
				}
			}
			amb += m.expect(md, md.hA, qs)
			continue
		}
		risk += riskTerms(qo, logC)
		if wm != nil {
			for o, v := range qo {
				nov += v * dot(wm[o*md.size:(o+1)*md.size], q)
			}
		}
		amb += dot(md.hA, q)
	}
	return risk, amb, nov
}
