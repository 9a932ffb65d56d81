package ffg

import "math"

// ksum is a compensated running sum (Neumaier's variant of Kahan's): the
// error of adding n terms stays near one rounding of the total instead of
// growing with n. ln Z of a Gaussian chain of 10^5 steps is a sum of
// 3·10^5 terms of both signs, about 10^5 in size: a plain sum is off by
// about 10^-5, the compensated one by about 10^-11.
type ksum struct{ s, c float64 }

// add adds x.
func (k *ksum) add(x float64) {
	t := k.s + x
	if math.Abs(k.s) >= math.Abs(x) {
		k.c += (k.s - t) + x
	} else {
		k.c += (x - t) + k.s
	}
	k.s = t
}

// value returns the sum.
func (k ksum) value() float64 { return k.s + k.c }

// addProd adds a·b, its rounding error included (math.FMA gives the exact
// remainder, which joins the compensation c: it is as small as the errors
// c gathers), so that products of numbers in the hundreds that cancel in
// the sum lose nothing to rounding.
func (k *ksum) addProd(a, b float64) {
	p := a * b
	k.add(p)
	k.c += math.FMA(a, b, -p)
}

// addProd3 adds a·b·c as addProd does, to within a rounding of the
// (tiny) error term's product.
func (k *ksum) addProd3(a, b, c float64) {
	t := a * b
	et := math.FMA(a, b, -t)
	p := t * c
	k.add(p)
	k.c += math.FMA(t, c, -p) + et*c
}

// merge adds the sum of o.
func (k *ksum) merge(o ksum) {
	k.add(o.s)
	k.add(o.c)
}
