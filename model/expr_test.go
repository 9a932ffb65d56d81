package model

import (
	"errors"
	"hash/fnv"
	"strings"
	"testing"
)

// exprValue gives every name a value of its own (a hash of the name, small
// or large so that overflow is reached too).
func exprValue(name string) (int64, bool) {
	h := fnv.New64a()
	h.Write([]byte(name))
	x := int64(h.Sum64())
	if x%3 != 0 {
		x %= 1000
	}
	return x, true
}

// evalText parses and evaluates s, as an expression or (when it has
// "..") a range, and writes it back.
func evalText(s string) (vals []int64, overflow []bool, printed string, err error) {
	var es []*expr
	if strings.Contains(s, "..") {
		lo, hi, err := parseRange(s)
		if err != nil {
			return nil, nil, "", err
		}
		es, printed = []*expr{lo, hi}, lo.String()+".."+hi.String()
	} else {
		e, err := parseExpr(s)
		if err != nil {
			return nil, nil, "", err
		}
		es, printed = []*expr{e}, e.String()
	}
	for _, e := range es {
		v, err := e.eval(exprValue)
		vals, overflow = append(vals, v), append(overflow, errors.Is(err, errOverflow))
	}
	return vals, overflow, printed, nil
}

// TestExpr: precedence, parentheses, unary minus, printing, ranges and
// the faults.
func TestExpr(t *testing.T) {
	sizes := map[string]int64{"T": 10, "K": 3}
	value := func(name string) (int64, bool) { v, ok := sizes[name]; return v, ok }
	for _, c := range []struct {
		text, printed string
		want          int64
	}{
		{"T-1", "T-1", 9},
		{" T - 1 - 2 ", "T-1-2", 7},
		{"T-(1-2)", "T-(1-2)", 11},
		{"2*T+K*3", "2*T+K*3", 29},
		{"2*(T+K)*3", "2*(T+K)*3", 78},
		{"-T*-K", "-T*-K", 30},
		{"-(T*K)", "-(T*K)", -30},
		{"--T", "--T", 10},
		{"((T))", "T", 10},
		{"0", "0", 0},
		{"T*(K*2)", "T*(K*2)", 60},
	} {
		e, err := parseExpr(c.text)
		if err != nil {
			t.Errorf("%q: %v", c.text, err)
			continue
		}
		if got := e.String(); got != c.printed {
			t.Errorf("%q printed %q, want %q", c.text, got, c.printed)
		}
		if v, err := e.eval(value); err != nil || v != c.want {
			t.Errorf("%q = %d (%v), want %d", c.text, v, err, c.want)
		}
		p, err := compile(e, &names{sizes: sizes})
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := p.constant(); !ok || v != c.want {
			t.Errorf("%q compiled to %v, want the constant %d", c.text, p.ops, c.want)
		}
	}
	// Indices: slots, evaluated per value.
	e, _ := parseExpr("n*K+k-1")
	p, err := compile(e, &names{sizes: sizes, indices: []string{"n", "k"}})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := p.eval([]int64{2, 1}); err != nil || v != 6 {
		t.Errorf("n*K+k-1 at n = 2, k = 1: %d, %v", v, err)
	}
	for _, c := range []struct{ text, fault string }{
		{"", "unexpected end"},
		{"T-", "unexpected end"},
		{"T+*2", `unexpected "*2"`},
		{"(T", `missing ")"`},
		{"T)", `unexpected ")"`},
		{"T 2", `unexpected "2" at column 3`},
		{"99999999999999999999", "too large"},
		{"1.5", `unexpected ".5"`},
		{"T/2", `unexpected "/2"`},
		{strings.Repeat("(", 100) + "1" + strings.Repeat(")", 100), "nested more than 64 deep"},
		{strings.Repeat("-", 100) + "1", "nested more than 64 deep"},
	} {
		if _, err := parseExpr(c.text); err == nil || !strings.Contains(err.Error(), c.fault) {
			t.Errorf("%q: error %v, want %q", c.text, err, c.fault)
		}
	}
	if _, _, err := parseRange("0..T-1..2"); err == nil {
		t.Errorf("0..T-1..2 parsed")
	}
	if _, _, err := parseRange("0"); err == nil || !strings.Contains(err.Error(), "FIRST..LAST") {
		t.Errorf("a range without ..: %v", err)
	}
	if _, err := compile(&expr{kind: exprMul, a: &expr{kind: exprNum, n: 1 << 62}, b: &expr{kind: exprNum, n: 4}}, &names{}); err == nil || !strings.Contains(err.Error(), "overflow") {
		t.Errorf("folded overflow: %v", err)
	}
	e, _ = parseExpr("t*4611686018427387904")
	p, _ = compile(e, &names{indices: []string{"t"}})
	if _, err := p.eval([]int64{2}); !errors.Is(err, errOverflow) {
		t.Errorf("overflow at run time: %v", err)
	}
}

// FuzzExpr: the expression and range parser never panics, and what it
// parses prints back to a text that parses to the same values (overflow
// included) and prints the same again; a compiled program agrees with
// the tree.
func FuzzExpr(f *testing.F) {
	for _, s := range []string{"T-1", "0..T-1", "1..T*K-(n+1)", "-(a*b)-c", "((x))", "--5", "9223372036854775807+1", "a*-b..-c*d", "1 .. 2", "(", "..", "0..", "2*(3+4)*x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		vals, overflow, printed, err := evalText(s)
		if err != nil {
			return
		}
		vals2, overflow2, printed2, err := evalText(printed)
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", s, printed, err)
		}
		if printed2 != printed {
			t.Fatalf("%q printed as %q, then as %q", s, printed, printed2)
		}
		for i := range vals {
			if overflow[i] != overflow2[i] || (!overflow[i] && vals[i] != vals2[i]) {
				t.Fatalf("%q = %v (overflow %v), printed %q = %v (overflow %v)", s, vals, overflow, printed, vals2, overflow2)
			}
		}
		if strings.Contains(s, "..") {
			return
		}
		// The program, every name an index.
		e, _ := parseExpr(s)
		var nm names
		var slots []int64
		var collect func(e *expr)
		collect = func(e *expr) {
			if e == nil {
				return
			}
			if e.kind == exprName && nm.slot(e.name) < 0 {
				v, _ := exprValue(e.name)
				nm.indices, slots = append(nm.indices, e.name), append(slots, v)
			}
			collect(e.a)
			collect(e.b)
		}
		collect(e)
		p, err := compile(e, &nm)
		if err != nil {
			if !overflow[0] {
				t.Fatalf("%q: compile: %v", s, err)
			}
			return
		}
		v, err := p.eval(slots)
		if errors.Is(err, errOverflow) != overflow[0] || (err == nil && v != vals[0]) {
			t.Fatalf("%q: program %d (%v), tree %d (overflow %v)", s, v, err, vals[0], overflow[0])
		}
	})
}
