package model

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
)

// MvPosterior holds the parameters of the multivariate and Beta
// posteriors in a Posterior: {"family":"mvnormal","mean":[...],
// "covariance":[[...]]}, {"family":"wishart","df":ν,"scale":[[...]]}
// (E[Λ] = ν·scale) and {"family":"beta","a":a,"b":b}.
type MvPosterior struct {
	MeanVector []float64   // the mean of an mvnormal ("mean")
	Covariance [][]float64 // its covariance matrix
	DF         *float64    // the degrees of freedom ν of a wishart
	Scale      [][]float64 // its scale matrix V
	A, B       *float64    // the shapes of a beta
}

// mvPosterior fills the multivariate fields of p from v.
func mvPosterior(p *Posterior, v *ffg.Variable) {
	rows := func(a []float64, d int) [][]float64 {
		out, flat := make([][]float64, d), append([]float64(nil), a...)
		for i := range d {
			out[i] = flat[i*d : i*d+d : i*d+d]
		}
		return out
	}
	switch v.Family() {
	case expfam.MvNormalFamily:
		n := v.MvNormal()
		p.Mv = &MvPosterior{MeanVector: append([]float64(nil), n.Mean...), Covariance: rows(n.Cov, len(n.Mean))}
	case expfam.WishartFamily:
		w := v.Wishart()
		df := w.DF
		p.Mv = &MvPosterior{DF: &df, Scale: rows(w.Scale, w.Dim())}
	case expfam.BetaFamily:
		b := v.Beta()
		p.Mv = &MvPosterior{A: &b.A, B: &b.B}
	}
}

// mvFields writes the fields of p.Mv.
func (j *jsonWriter) mvFields(p *Posterior) {
	mv := p.Mv
	if mv == nil {
		return
	}
	if mv.MeanVector != nil {
		j.b = append(j.b, `,"mean":`...)
		j.floats(mv.MeanVector)
	}
	matrix := func(key string, m [][]float64) {
		if m == nil {
			return
		}
		j.b = append(j.b, key...)
		j.matrix(m)
	}
	matrix(`,"covariance":`, mv.Covariance)
	for _, f := range []struct {
		key string
		x   *float64
	}{{`,"df":`, mv.DF}, {`,"a":`, mv.A}, {`,"b":`, mv.B}} {
		if f.x != nil {
			j.b = append(j.b, f.key...)
			j.float(*f.x)
		}
	}
	matrix(`,"scale":`, mv.Scale)
}

// matrix writes the rows of m as nested arrays. An entry below the
// diagonal equal to its mirror above (bit for bit: a covariance) takes
// the mirror's text, formatted once.
func (j *jsonWriter) matrix(m [][]float64) {
	var spanBuf [64][2]int32
	d := len(m)
	square := true
	for _, row := range m {
		square = square && len(row) == d
	}
	spans := spanBuf[:0]
	if square && d*d > len(spanBuf) {
		spans = make([][2]int32, 0, d*d)
	}
	j.b = append(j.b, '[')
	for r, row := range m {
		if r > 0 {
			j.b = append(j.b, ',')
		}
		j.b = append(j.b, '[')
		for c, x := range row {
			if c > 0 {
				j.b = append(j.b, ',')
			}
			start := int32(len(j.b))
			if square && c < r && math.Float64bits(m[c][r]) == math.Float64bits(x) {
				sp := spans[c*d+r]
				j.b = append(j.b, j.b[sp[0]:sp[1]]...)
			} else {
				j.float(x)
			}
			if square {
				spans = append(spans, [2]int32{start, int32(len(j.b))})
			}
		}
		j.b = append(j.b, ']')
	}
	j.b = append(j.b, ']')
}

// mvNormal writes the posterior N(mean, cov) of an mvnormal variable as
// posterior writes its Posterior, without assembling one.
func (j *jsonWriter) mvNormal(n expfam.MvNormal) {
	var rowBuf [8][]float64
	d := len(n.Mean)
	rows := rowBuf[:0]
	if d > len(rowBuf) {
		rows = make([][]float64, 0, d)
	}
	for i := range d {
		rows = append(rows, n.Cov[i*d:i*d+d])
	}
	j.b = append(j.b, `{"family":"mvnormal","mean":`...)
	j.floats(n.Mean)
	j.b = append(j.b, `,"covariance":`...)
	j.matrix(rows)
	j.b = append(j.b, '}')
}

// MarshalJSON writes the posterior as `arbor infer --json` does.
func (p Posterior) MarshalJSON() ([]byte, error) {
	j := &jsonWriter{}
	j.posterior(&p)
	return j.b, apiError(j.err)
}

// UnmarshalJSON reads a posterior of any family: "mean" is a number (a
// normal's) or an array (an mvnormal's).
func (p *Posterior) UnmarshalJSON(data []byte) error {
	type plain Posterior
	aux := struct {
		plain
		Mean       json.RawMessage `json:"mean"`
		Covariance [][]float64     `json:"covariance"`
		DF         *float64        `json:"df"`
		Scale      [][]float64     `json:"scale"`
		A          *float64        `json:"a"`
		B          *float64        `json:"b"`
	}{}
	if err := json.Unmarshal(data, &aux); err != nil {
		return apiError(err)
	}
	*p = Posterior(aux.plain)
	p.Mean, p.Mv = nil, nil
	var mv MvPosterior
	if len(aux.Mean) > 0 && aux.Mean[0] == '[' {
		if err := json.Unmarshal(aux.Mean, &mv.MeanVector); err != nil {
			return apiError(err)
		}
	} else if len(aux.Mean) > 0 && string(aux.Mean) != "null" {
		var x float64
		if err := json.Unmarshal(aux.Mean, &x); err != nil {
			return apiError(err)
		}
		p.Mean = &x
	}
	mv.Covariance, mv.DF, mv.Scale, mv.A, mv.B = aux.Covariance, aux.DF, aux.Scale, aux.A, aux.B
	if mv.MeanVector != nil || mv.Covariance != nil || mv.DF != nil || mv.Scale != nil || mv.A != nil || mv.B != nil {
		p.Mv = &mv
	}
	return nil
}

// MvColumns returns the column heads of an array of mvnormal, wishart or
// beta variables of shape [d] (nil for a beta) in the human output of `arbor infer`:
// the means and standard deviations of an mvnormal, the degrees of
// freedom and the diagonal of E[Λ] = ν·scale of a wishart, a, b and the
// mean of a beta.
func MvColumns(fam expfam.Family, shape []int) []string {
	var out []string
	d := 0
	if len(shape) > 0 {
		d = shape[0]
	}
	switch fam {
	case expfam.MvNormalFamily:
		for i := range d {
			out = append(out, "mean["+strconv.Itoa(i)+"]")
		}
		for i := range d {
			out = append(out, "sd["+strconv.Itoa(i)+"]")
		}
	case expfam.WishartFamily:
		out = append(out, "df")
		for i := range d {
			out = append(out, "E["+strconv.Itoa(i)+","+strconv.Itoa(i)+"]")
		}
	case expfam.BetaFamily:
		out = append(out, "a", "b", "mean")
	}
	return out
}

// Row returns the numbers of MvColumns, each written by num.
func (mv *MvPosterior) Row(num func(float64) string) []string {
	var out []string
	switch {
	case mv.MeanVector != nil:
		for _, x := range mv.MeanVector {
			out = append(out, num(x))
		}
		for i := range mv.Covariance {
			out = append(out, num(math.Sqrt(mv.Covariance[i][i])))
		}
	case mv.DF != nil:
		out = append(out, num(*mv.DF))
		for i := range mv.Scale {
			out = append(out, num(*mv.DF*mv.Scale[i][i]))
		}
	case mv.A != nil:
		out = append(out, num(*mv.A), num(*mv.B), num(*mv.A/(*mv.A+*mv.B)))
	}
	return out
}

// Text returns the posterior's parameters as one line of the human
// output: "mean = [...], covariance = [[...]]", "df = ν, scale =
// [[...]]" or "a = a, b = b".
func (mv *MvPosterior) Text(digits int) string {
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', digits, 64) }
	vec := func(xs []float64) string {
		s := make([]string, len(xs))
		for i, x := range xs {
			s[i] = num(x)
		}
		return "[" + strings.Join(s, " ") + "]"
	}
	mat := func(m [][]float64) string {
		s := make([]string, len(m))
		for i, r := range m {
			s[i] = vec(r)
		}
		return "[" + strings.Join(s, " ") + "]"
	}
	switch {
	case mv.MeanVector != nil:
		return "mean = " + vec(mv.MeanVector) + ", covariance = " + mat(mv.Covariance)
	case mv.DF != nil:
		return "df = " + num(*mv.DF) + ", scale = " + mat(mv.Scale)
	case mv.A != nil:
		return "a = " + num(*mv.A) + ", b = " + num(*mv.B)
	}
	return ""
}
