package model

import "github.com/arbor-ai/arbor/internal/prefault"

// factorList holds a file's factors as read, in file order. A long
// written-out file has a factor per element, nearly every one of which
// sets a few fields: a normal factor its node, output, mean and
// precision, a transition its parents and matrix. Such a factor is kept
// in a small record (factorRec, 200 bytes); a factor that sets any other
// field is kept in full (factorSpec, about 650), in chunks that are never
// moved, so that neither the memory nor the collector's scans pay for the
// fields that few factors set.
type factorList struct {
	present bool // the file's "factors" is an array (not absent or null)
	recs    []factorRec
	full    [][]factorSpec // chunks of fullChunk
	nFull   int
}

// factorRec is a factor that sets no field but these.
type factorRec struct {
	Node, Name, Out, Precision string
	In                         []string
	P, Matrix, PrecisionNum    jsonValue
	mean                       jsonValue // a mean that is a name or a number
	full                       int32     // the factor's index in full, or -1
	meanSet                    bool
}

// fullChunk is the number of factors in each chunk of factorList.full.
const fullChunk = 256

// reserve makes room for n factors.
func (l *factorList) reserve(n int) {
	l.present = true
	l.recs = prefault.Make[factorRec](0, n)
}

// len returns the number of factors.
func (l *factorList) len() int { return len(l.recs) }

// add appends the factor fs.
func (l *factorList) add(fs *factorSpec) {
	l.present = true
	if fs.small() {
		l.recs = append(l.recs, factorRec{Node: fs.Node, Name: fs.Name, Out: fs.Out, Precision: fs.Precision,
			In: fs.In, P: fs.P, Matrix: fs.Matrix, PrecisionNum: fs.PrecisionNum, mean: fs.Mean.v, meanSet: fs.Mean.set, full: -1})
		return
	}
	if l.nFull%fullChunk == 0 {
		l.full = append(l.full, make([]factorSpec, 0, fullChunk))
	}
	c := &l.full[len(l.full)-1]
	*c = append(*c, *fs)
	l.recs = append(l.recs, factorRec{full: int32(l.nFull)})
	l.nFull++
}

// at returns factor i.
func (l *factorList) at(i int) factorSpec {
	r := &l.recs[i]
	if r.full >= 0 {
		return l.full[r.full/fullChunk][r.full%fullChunk]
	}
	return factorSpec{Node: r.Node, Name: r.Name, Out: r.Out, Precision: r.Precision,
		In: r.In, P: r.P, Matrix: r.Matrix, PrecisionNum: r.PrecisionNum, Mean: jsonMean{set: r.meanSet, v: r.mean}}
}

// small reports whether fs sets no field but those of a factorRec: a mean
// given as an object, or any other field, needs the full spec.
func (fs *factorSpec) small() bool {
	m := &fs.Mean
	if m.obj || m.of != "" || m.scale.given() || m.offset.given() || m.sum.set || m.sum.terms != nil ||
		m.matrix.given() || m.dot != nil {
		return false
	}
	return !(fs.Alpha.given() || fs.Shape.given() || fs.Rate.given() || fs.Values.given() || fs.Update != "" ||
		fs.Switch != "" || fs.Means.set || fs.Means.items != nil || fs.Precisions.set || fs.Precisions.items != nil ||
		fs.For != nil || fs.DF.given() || fs.Scale.given() || fs.A.given() || fs.B.given() || fs.Covariance.given())
}

// given reports whether v holds anything.
func (v jsonValue) given() bool { return v.set || v.name != nil || v.t != nil }
