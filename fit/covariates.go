package fit

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Covariates are the subjects' covariates of a group fit, read from a CSV
// file (ReadCovariates): a header "subject,NAME,..." and one row per
// subject. A column whose every value is a number is numeric; a column
// with no number is a category, expanded in a design to indicator
// columns, one per level but the first (the reference) in sorted order.
type Covariates struct {
	// File names the source in errors.
	File string
	// Names are the covariates' names (the header without "subject").
	Names []string
	// Subjects, Lines and Values hold the rows: the subject, the line of
	// the file and the values in Names' order.
	Subjects []string
	Lines    []int
	Values   [][]string
	// Levels holds a category's levels, sorted (nil for a numeric
	// column).
	Levels [][]string
	num    [][]float64
}

// Bounds of a covariates file.
const (
	MaxCovariates    = 256
	MaxCategoryLevel = 1000
)

// ReadCovariates reads a covariates CSV from r; file names it in errors,
// which are one line, prefixed "fit: FILE:LINE:" where a line is at
// fault.
func ReadCovariates(r io.Reader, file string) (*Covariates, error) {
	cr := csv.NewReader(r)
	cr.TrimLeadingSpace = true
	head, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("fit: %s: empty (want a header subject,NAME,...)", file)
	}
	if err != nil {
		return nil, fmt.Errorf("fit: %s: %v", file, csvErr(err))
	}
	if len(head) > 0 {
		head[0] = strings.TrimPrefix(head[0], "\ufeff")
	}
	if len(head) < 2 || strings.TrimSpace(head[0]) != "subject" {
		return nil, fmt.Errorf("fit: %s:1: the header must be subject,NAME,... (got %s)", file, quoteShort(strings.Join(head, ",")))
	}
	if len(head)-1 > MaxCovariates {
		return nil, fmt.Errorf("fit: %s:1: %d covariates, at most %d", file, len(head)-1, MaxCovariates)
	}
	c := &Covariates{File: file}
	for _, h := range head[1:] {
		h = strings.TrimSpace(h)
		switch {
		case h == "" || !validName(h):
			return nil, fmt.Errorf("fit: %s:1: column name %s: want a letter or _ then letters, digits, _ or . (a name the design formula can use)", file, quoteShort(h))
		case slices.Contains(c.Names, h):
			return nil, fmt.Errorf("fit: %s:1: column %s twice", file, h)
		}
		c.Names = append(c.Names, h)
	}
	seen := map[string]int{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.Line
			}
			return nil, fmt.Errorf("fit: %s:%d: %v", file, line, csvErr(err))
		}
		subject := strings.TrimSpace(rec[0])
		if subject == "" {
			return nil, fmt.Errorf("fit: %s:%d: an empty subject", file, line)
		}
		if prev, dup := seen[subject]; dup {
			return nil, fmt.Errorf("fit: %s:%d: subject %s again (first at line %d)", file, line, quoteShort(subject), prev)
		}
		seen[subject] = line
		vals := make([]string, len(c.Names))
		for j := range c.Names {
			vals[j] = strings.TrimSpace(rec[j+1])
			if vals[j] == "" {
				return nil, fmt.Errorf("fit: %s:%d: column %s: an empty value", file, line, c.Names[j])
			}
		}
		c.Subjects, c.Lines, c.Values = append(c.Subjects, subject), append(c.Lines, line), append(c.Values, vals)
	}
	if len(c.Subjects) == 0 {
		return nil, fmt.Errorf("fit: %s: no subject rows", file)
	}
	c.Levels = make([][]string, len(c.Names))
	c.num = make([][]float64, len(c.Names))
	for j, name := range c.Names {
		numbers, firstNum, firstText := 0, -1, -1
		for i, row := range c.Values {
			if _, err := strconv.ParseFloat(row[j], 64); err == nil {
				numbers++
				if firstNum < 0 {
					firstNum = i
				}
			} else if firstText < 0 {
				firstText = i
			}
		}
		if numbers == 0 {
			levels := map[string]bool{}
			for _, row := range c.Values {
				if !levels[row[j]] {
					levels[row[j]] = true
					c.Levels[j] = append(c.Levels[j], row[j])
				}
			}
			if len(c.Levels[j]) > MaxCategoryLevel {
				return nil, fmt.Errorf("fit: %s: column %s: %d levels, at most %d", file, name, len(c.Levels[j]), MaxCategoryLevel)
			}
			slices.Sort(c.Levels[j])
			continue
		}
		if firstText >= 0 {
			return nil, fmt.Errorf("fit: %s:%d: column %s: %s is not a number (the column is numeric: line %d has %s)", file, c.Lines[firstText], name,
				quoteShort(c.Values[firstText][j]), c.Lines[firstNum], c.Values[firstNum][j])
		}
		c.num[j] = make([]float64, len(c.Values))
		for i, row := range c.Values {
			x, _ := strconv.ParseFloat(row[j], 64)
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("fit: %s:%d: column %s: %s, want a finite number", file, c.Lines[i], name, row[j])
			}
			c.num[j][i] = x
		}
	}
	return c, nil
}

func validName(s string) bool {
	if s == "" || s == InterceptName || !isNameByte(s[0], false) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isNameByte(s[i], true) {
			return false
		}
	}
	return true
}

// csvErr is a csv error without its own position prefix.
func csvErr(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// columns returns the design columns of covariate name for the rows rows
// (in the subjects' order): the values of a numeric one, the indicators
// of a category's levels but the first.
func (c *Covariates) columns(name string, rows []int) ([]string, [][]float64) {
	j := slices.Index(c.Names, name)
	if c.num[j] != nil {
		v := make([]float64, len(rows))
		for i, r := range rows {
			v[i] = c.num[j][r]
		}
		return []string{name}, [][]float64{v}
	}
	var names []string
	var vals [][]float64
	for _, level := range c.Levels[j][1:] {
		v := make([]float64, len(rows))
		for i, r := range rows {
			if c.Values[r][j] == level {
				v[i] = 1
			}
		}
		names, vals = append(names, name+"["+level+"]"), append(vals, v)
	}
	return names, vals
}

// DefaultFormula is the formula of a group fit without --design: the
// intercept and, with covariates, every covariate in the file's order.
func DefaultFormula(cov *Covariates) Formula {
	f := Formula{Terms: [][]string{nil}}
	if cov != nil {
		for _, n := range cov.Names {
			f.Terms = append(f.Terms, []string{n})
		}
	}
	return f
}
