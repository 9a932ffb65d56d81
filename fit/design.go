package fit

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// InterceptName is the name of the intercept: the design term "1" and the
// column of ones.
const InterceptName = "1"

// Formula is a design formula over covariate names: a sum of terms, each
// the product (interaction) of one or more covariates; the empty term is
// the intercept.
//
// The grammar (whitespace is ignored):
//
//	formula = term { "+" term }
//	term    = product { "*" product }   a*b = a + b + a:b
//	product = factor { ":" factor }     a:b, the interaction alone
//	factor  = "1" | name                name = letter or _ then letters, digits, _ or .
//
// "1" is the intercept; without it the design has none. ":" binds tighter
// than "*". A term written twice counts once.
type Formula struct {
	// Terms holds the terms in the order they first appear; each is the
	// list of its covariates' names (nil for the intercept).
	Terms [][]string
}

// String writes the formula back in the grammar's form.
func (f Formula) String() string {
	parts := make([]string, len(f.Terms))
	for i, t := range f.Terms {
		if len(t) == 0 {
			parts[i] = InterceptName
		} else {
			parts[i] = strings.Join(t, ":")
		}
	}
	return strings.Join(parts, " + ")
}

// MaxFormulaTerms bounds the terms of a formula (after "*" is expanded).
const MaxFormulaTerms = 256

// ParseFormula reads a design formula (Formula's grammar). Errors name
// the position and the token ("fit: design "1 + +": at 5: ...").
func ParseFormula(s string) (Formula, error) {
	p := formulaParser{src: s}
	f, err := p.parse()
	if err != nil {
		return Formula{}, fmt.Errorf("fit: design %s: %w", quoteShort(s), err)
	}
	return f, nil
}

type formulaParser struct {
	src string
	pos int
}

func (p *formulaParser) skip() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
		p.pos++
	}
}

func (p *formulaParser) peek() byte {
	p.skip()
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

func (p *formulaParser) parse() (Formula, error) {
	var f Formula
	seen := map[string]bool{}
	for {
		terms, err := p.term()
		if err != nil {
			return f, err
		}
		for _, t := range terms {
			key := termKey(t)
			if seen[key] {
				continue
			}
			seen[key] = true
			f.Terms = append(f.Terms, t)
			if len(f.Terms) > MaxFormulaTerms {
				return f, fmt.Errorf("more than %d terms", MaxFormulaTerms)
			}
		}
		switch c := p.peek(); c {
		case 0:
			return f, nil
		case '+':
			p.pos++
		default:
			return f, fmt.Errorf("at %d: %q, want + or the end", p.pos+1, rune(c))
		}
	}
}

// term reads a term and returns its expansion.
func (p *formulaParser) term() ([][]string, error) {
	var prods [][]string
	for {
		prod, err := p.product()
		if err != nil {
			return nil, err
		}
		prods = append(prods, prod)
		if len(prods) > 8 {
			return nil, errors.New("more than 8 factors joined by *")
		}
		if p.peek() != '*' {
			break
		}
		p.pos++
	}
	// a*b*c: every non-empty subset of the products, in binary order.
	var out [][]string
	for mask := 1; mask < 1<<len(prods); mask++ {
		var t []string
		for i, prod := range prods {
			if mask&(1<<i) != 0 {
				t = mergeNames(t, prod)
			}
		}
		out = append(out, t)
	}
	slices.SortStableFunc(out, func(a, b []string) int { return len(a) - len(b) })
	return out, nil
}

// product reads factors joined by ":".
func (p *formulaParser) product() ([]string, error) {
	var t []string
	for {
		name, err := p.factor()
		if err != nil {
			return nil, err
		}
		if name != InterceptName {
			t = mergeNames(t, []string{name})
		}
		if p.peek() != ':' {
			return t, nil
		}
		p.pos++
	}
}

func (p *formulaParser) factor() (string, error) {
	c := p.peek()
	start := p.pos
	switch {
	case c == 0:
		return "", fmt.Errorf("at %d: the formula ends where a name or 1 is wanted", p.pos+1)
	case c == '1':
		p.pos++
		if p.pos < len(p.src) && isNameByte(p.src[p.pos], true) {
			return "", fmt.Errorf("at %d: a number other than 1 (names start with a letter or _)", start+1)
		}
		return InterceptName, nil
	case isNameByte(c, false):
		for p.pos < len(p.src) && isNameByte(p.src[p.pos], true) {
			p.pos++
		}
		return p.src[start:p.pos], nil
	}
	return "", fmt.Errorf("at %d: %q, want a covariate name or 1", p.pos+1, rune(c))
}

func isNameByte(c byte, rest bool) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		return true
	case rest && (c >= '0' && c <= '9' || c == '.'):
		return true
	}
	return false
}

// mergeNames appends the names of b not in a.
func mergeNames(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, n := range b {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func termKey(t []string) string {
	s := slices.Clone(t)
	slices.Sort(s)
	return strings.Join(s, ":")
}

// quoteShort quotes s, cut to 60 bytes at a rune boundary.
func quoteShort(s string) string {
	if len(s) > 60 {
		cut := 60
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "..."
	}
	return fmt.Sprintf("%q", s)
}

// Design is a second-level design matrix: one row per subject, one column
// per effect.
type Design struct {
	// Columns names the columns: "1" for the intercept, a numeric
	// covariate by its name, a category's indicator as name[level], an
	// interaction as its columns' names joined by ":".
	Columns []string
	// X holds the rows, in the subjects' order.
	X [][]float64
}

// NewDesign builds the design of formula f over the covariates cov for
// the subjects in order, and checks it: every term names columns of cov,
// cov has a row for every subject and no other, the design has full
// column rank (the error names the columns at fault) and there are at
// least as many subjects as columns. cov may be nil when f has only the
// intercept.
func NewDesign(f Formula, cov *Covariates, subjects []string) (*Design, error) {
	if len(f.Terms) == 0 {
		return nil, errors.New("fit: design: no term")
	}
	file := "the covariates"
	if cov != nil {
		file = cov.File
	}
	for _, t := range f.Terms {
		for _, name := range t {
			if cov == nil {
				return nil, fmt.Errorf("fit: design term %s: no covariates file to take %s from", strings.Join(t, ":"), name)
			}
			if !slices.Contains(cov.Names, name) {
				return nil, fmt.Errorf("fit: design term %s: %s names no column of %s (it has %s)", strings.Join(t, ":"), name, file, strings.Join(cov.Names, ", "))
			}
		}
	}
	rows := make([]int, len(subjects))
	if cov != nil {
		index := make(map[string]int, len(cov.Subjects))
		for i, s := range cov.Subjects {
			index[s] = i
		}
		want := make(map[string]bool, len(subjects))
		for i, s := range subjects {
			want[s] = true
			r, ok := index[s]
			if !ok {
				return nil, fmt.Errorf("fit: %s: no row for subject %q of the data", file, s)
			}
			rows[i] = r
		}
		for i, s := range cov.Subjects {
			if !want[s] {
				return nil, fmt.Errorf("fit: %s:%d: subject %q is not in the data", file, cov.Lines[i], s)
			}
		}
	}
	d := &Design{X: make([][]float64, len(subjects))}
	for _, t := range f.Terms {
		// The columns of a term: the products of its covariates' columns.
		names := []string{""}
		vals := make([][]float64, 1)
		vals[0] = make([]float64, len(subjects))
		for i := range vals[0] {
			vals[0][i] = 1
		}
		for _, name := range t {
			cn, cv := cov.columns(name, rows)
			if len(cn) == 0 {
				j := slices.Index(cov.Names, name)
				return nil, fmt.Errorf("fit: design term %s: %s has one level (%s) in %s: nothing to contrast", strings.Join(t, ":"), name, quoteShort(cov.Levels[j][0]), file)
			}
			var nn []string
			var nv [][]float64
			for a := range names {
				for b := range cn {
					joined := cn[b]
					if names[a] != "" {
						joined = names[a] + ":" + cn[b]
					}
					v := make([]float64, len(subjects))
					for i := range v {
						v[i] = vals[a][i] * cv[b][i]
					}
					nn, nv = append(nn, joined), append(nv, v)
				}
			}
			names, vals = nn, nv
			if len(d.Columns)+len(names) > len(subjects) {
				all := append(slices.Clip(d.Columns), names...)
				return nil, fmt.Errorf("fit: design: %d subjects for at least %d columns (%s): want at least as many subjects as columns", len(subjects), len(all), shortList(all))
			}
		}
		if len(t) == 0 {
			names[0] = InterceptName
		}
		for a := range names {
			d.Columns = append(d.Columns, names[a])
			for i := range subjects {
				d.X[i] = append(d.X[i], vals[a][i])
			}
		}
	}
	if err := d.checkRank(); err != nil {
		return nil, apiError(err)
	}
	return d, nil
}

// checkRank returns an error naming the first column that is a linear
// combination of the columns before it (Gram-Schmidt, twice for
// stability).
func (d *Design) checkRank() error {
	n := len(d.X)
	var basis [][]float64
	for c, name := range d.Columns {
		v := make([]float64, n)
		norm := 0.0
		for i := range n {
			v[i] = d.X[i][c]
			norm += v[i] * v[i]
		}
		norm = math.Sqrt(norm)
		if norm == 0 {
			return fmt.Errorf("fit: design: column %s is 0 for every subject (the design is rank deficient)", name)
		}
		for range 2 {
			for _, b := range basis {
				dot := 0.0
				for i := range n {
					dot += v[i] * b[i]
				}
				for i := range n {
					v[i] -= dot * b[i]
				}
			}
		}
		r := 0.0
		for i := range n {
			r += v[i] * v[i]
		}
		r = math.Sqrt(r)
		if r <= 1e-9*norm || math.IsNaN(r) {
			return fmt.Errorf("fit: design: column %s is a linear combination of %s (the design is rank deficient)", name, strings.Join(d.Columns[:c], ", "))
		}
		for i := range n {
			v[i] /= r
		}
		basis = append(basis, v)
	}
	return nil
}

// shortList joins names, the first 8 and a count of the others.
func shortList(names []string) string {
	if len(names) > 8 {
		return strings.Join(names[:8], ", ") + fmt.Sprintf(" and %d more", len(names)-8)
	}
	return strings.Join(names, ", ")
}
