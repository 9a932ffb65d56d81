package si

// index maps a 64-bit hash to an int32 (the first node or cache entry of
// that hash), with open addressing, for the search's two tables of
// beliefs: a lookup is a multiply and a probe or two, where a Go map
// hashes the key again. A slot holds its key, value and stamp together,
// so that a probe reads one cache line. Emptied in O(1) (a new
// generation); not safe for concurrent use.
type index struct {
	slots []slot
	cur   uint32
	n     int
	bits  uint // len(slots) = 1 << bits
}

// slot is one entry of an index, in use when gen is the index's cur.
type slot struct {
	key uint64
	val int32
	gen uint32
}

// reset empties the index, keeping its memory.
func (x *index) reset() {
	x.n = 0
	x.cur++
	if x.cur == 0 || x.slots == nil {
		// First use, or the generations wrapped around: clear the stamps.
		if x.slots == nil {
			x.grow(6) // 64 slots
		}
		for i := range x.slots {
			x.slots[i].gen = 0
		}
		x.cur = 1
	}
}

func (x *index) grow(bits uint) {
	old, cur := x.slots, x.cur
	x.bits = bits
	x.slots = make([]slot, 1<<bits)
	x.cur = 1
	x.n = 0
	for _, s := range old {
		if s.gen == cur && cur != 0 {
			x.put(s.key, s.val)
		}
	}
}

// find returns where hash h is or would go.
func (x *index) find(h uint64) int {
	// Fibonacci hashing: the top bits of h times 2^64/φ.
	mask := len(x.slots) - 1
	i := int((h * 11400714819323198485) >> (64 - x.bits))
	for x.slots[i].gen == x.cur && x.slots[i].key != h {
		i = (i + 1) & mask
	}
	return i
}

// get returns the value of h and whether h is in the index.
func (x *index) get(h uint64) (int32, bool) {
	s := &x.slots[x.find(h)]
	if s.gen != x.cur {
		return 0, false
	}
	return s.val, true
}

// put sets the value of h.
func (x *index) put(h uint64, v int32) {
	if 2*(x.n+1) > len(x.slots) {
		x.grow(x.bits + 1)
	}
	s := &x.slots[x.find(h)]
	if s.gen != x.cur {
		s.gen, s.key = x.cur, h
		x.n++
	}
	s.val = v
}
