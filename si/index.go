package si

// index maps a 64-bit hash to an int32 (the first node or cache entry of
// that hash), with open addressing, for the search's two tables of
// beliefs: a lookup is a multiply and a probe or two, where a Go map
// hashes the key again. Emptied in O(1) (a new generation); not safe for
// concurrent use.
type index struct {
	keys []uint64
	vals []int32
	gen  []uint32 // a slot is in use when gen[i] == cur
	cur  uint32
	n    int
	bits uint // len(keys) = 1 << bits
}

// reset empties the index, keeping its memory.
func (x *index) reset() {
	x.n = 0
	x.cur++
	if x.cur == 0 || x.keys == nil {
		// First use, or the generations wrapped around: clear the stamps.
		if x.keys == nil {
			x.grow(6) // 64 slots
		}
		clear(x.gen)
		x.cur = 1
	}
}

func (x *index) grow(bits uint) {
	keys, vals, gen, cur := x.keys, x.vals, x.gen, x.cur
	x.bits = bits
	x.keys = make([]uint64, 1<<bits)
	x.vals = make([]int32, 1<<bits)
	x.gen = make([]uint32, 1<<bits)
	x.cur = 1
	x.n = 0
	for i, g := range gen {
		if g == cur && cur != 0 {
			x.put(keys[i], vals[i])
		}
	}
}

// slot returns where hash h is or would go.
func (x *index) slot(h uint64) int {
	// Fibonacci hashing: the top bits of h times 2^64/φ.
	mask := len(x.keys) - 1
	i := int((h * 11400714819323198485) >> (64 - x.bits))
	for x.gen[i] == x.cur && x.keys[i] != h {
		i = (i + 1) & mask
	}
	return i
}

// get returns the value of h and whether h is in the index.
func (x *index) get(h uint64) (int32, bool) {
	i := x.slot(h)
	if x.gen[i] != x.cur {
		return 0, false
	}
	return x.vals[i], true
}

// put sets the value of h.
func (x *index) put(h uint64, v int32) {
	if 2*(x.n+1) > len(x.keys) {
		x.grow(x.bits + 1)
	}
	i := x.slot(h)
	if x.gen[i] != x.cur {
		x.gen[i], x.keys[i] = x.cur, h
		x.n++
	}
	x.vals[i] = v
}
