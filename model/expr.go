package model

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The integer expressions of sizes, arrays and loops (docs/formats.md,
// "Sizes, arrays and loops"): a loop's range "1..T-1", an array's extent
// "T", an element's indices "x[t-1]", "X[n,k]". An expression is made of
// whole numbers, names (sizes and the indices of enclosing loops), + - *,
// a leading - and parentheses. It is parsed once into an expr, compiled
// once into a program against the names it may use (a size becomes its
// number, an index a slot), and the program is evaluated per loop value.

// exprKind is the kind of an expression node.
type exprKind uint8

const (
	exprNum exprKind = iota
	exprName
	exprNeg
	exprAdd
	exprSub
	exprMul
)

// expr is a parsed expression.
type expr struct {
	kind exprKind
	n    int64  // exprNum
	name string // exprName
	a, b *expr  // the operands (b nil for exprNeg)
}

// maxExprDepth bounds the nesting of parentheses and unary minus, so that a
// hostile text cannot exhaust the stack.
const maxExprDepth = 64

// exprParser reads one expression text.
type exprParser struct {
	s     string
	i     int
	depth int
}

// parseExpr parses the whole text s as one expression.
func parseExpr(s string) (*expr, error) {
	p := &exprParser{s: s}
	e, err := p.sum()
	if err != nil {
		return nil, err
	}
	if p.space(); p.i < len(p.s) {
		return nil, p.unexpected()
	}
	return e, nil
}

// parseRange parses "LO..HI".
func parseRange(s string) (lo, hi *expr, err error) {
	p := &exprParser{s: s}
	if lo, err = p.sum(); err != nil {
		return nil, nil, err
	}
	if p.space(); !strings.HasPrefix(p.s[p.i:], "..") {
		if p.i >= len(p.s) {
			return nil, nil, errors.New(`want a range "FIRST..LAST" such as "0..T-1"`)
		}
		return nil, nil, p.unexpected()
	}
	p.i += 2
	if hi, err = p.sum(); err != nil {
		return nil, nil, err
	}
	if p.space(); p.i < len(p.s) {
		return nil, nil, p.unexpected()
	}
	return lo, hi, nil
}

func (p *exprParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

// unexpected is the error for the text at p.i.
func (p *exprParser) unexpected() error {
	if p.i >= len(p.s) {
		return errors.New("unexpected end of the expression")
	}
	rest := p.s[p.i:]
	if len(rest) > 10 {
		rest = rest[:10] + "..."
	}
	return fmt.Errorf("unexpected %q at column %d", rest, p.i+1)
}

func (p *exprParser) sum() (*expr, error) {
	a, err := p.product()
	if err != nil {
		return nil, err
	}
	for {
		p.space()
		if p.i >= len(p.s) || (p.s[p.i] != '+' && p.s[p.i] != '-') {
			return a, nil
		}
		kind := exprAdd
		if p.s[p.i] == '-' {
			kind = exprSub
		}
		p.i++
		b, err := p.product()
		if err != nil {
			return nil, err
		}
		a = &expr{kind: kind, a: a, b: b}
	}
}

func (p *exprParser) product() (*expr, error) {
	a, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != '*' {
			return a, nil
		}
		p.i++
		b, err := p.unary()
		if err != nil {
			return nil, err
		}
		a = &expr{kind: exprMul, a: a, b: b}
	}
}

func (p *exprParser) unary() (*expr, error) {
	if p.depth++; p.depth > maxExprDepth {
		return nil, fmt.Errorf("nested more than %d deep", maxExprDepth)
	}
	defer func() { p.depth-- }()
	p.space()
	if p.i >= len(p.s) {
		return nil, errors.New("unexpected end of the expression (want a number, a name or \"(\")")
	}
	switch c := p.s[p.i]; {
	case c == '-':
		p.i++
		a, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &expr{kind: exprNeg, a: a}, nil
	case c == '(':
		p.i++
		e, err := p.sum()
		if err != nil {
			return nil, err
		}
		if p.space(); p.i >= len(p.s) || p.s[p.i] != ')' {
			if p.i >= len(p.s) {
				return nil, errors.New(`missing ")"`)
			}
			return nil, p.unexpected()
		}
		p.i++
		return e, nil
	case '0' <= c && c <= '9':
		j := p.i
		for j < len(p.s) && '0' <= p.s[j] && p.s[j] <= '9' {
			j++
		}
		n, err := strconv.ParseInt(p.s[p.i:j], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("number %s too large", shorten(p.s[p.i:j]))
		}
		p.i = j
		return &expr{kind: exprNum, n: n}, nil
	case isNameStart(c):
		j := p.i
		for j < len(p.s) && isNameByte(p.s[j]) {
			j++
		}
		name := p.s[p.i:j]
		p.i = j
		return &expr{kind: exprName, name: name}, nil
	}
	return nil, p.unexpected()
}

func isNameStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isNameByte(c byte) bool  { return isNameStart(c) || '0' <= c && c <= '9' }

// isIdent reports whether s is a name that expressions can use: a letter
// or _, then letters, digits and _.
func isIdent(s string) bool {
	if s == "" || !isNameStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isNameByte(s[i]) {
			return false
		}
	}
	return true
}

// String writes e with the fewest parentheses that keep its structure.
func (e *expr) String() string {
	var b strings.Builder
	e.write(&b, 0)
	return b.String()
}

// precedence of the node's operator: 1 for + and -, 2 for *, 3 for a
// unary minus, 4 for a number or a name.
func (e *expr) precedence() int {
	switch e.kind {
	case exprAdd, exprSub:
		return 1
	case exprMul:
		return 2
	case exprNeg:
		return 3
	}
	return 4
}

// write writes e, in parentheses when its precedence is below min.
func (e *expr) write(b *strings.Builder, min int) {
	paren := e.precedence() < min
	if paren {
		b.WriteByte('(')
	}
	switch e.kind {
	case exprNum:
		b.WriteString(strconv.FormatInt(e.n, 10))
	case exprName:
		b.WriteString(e.name)
	case exprNeg:
		b.WriteByte('-')
		e.a.write(b, 3)
	case exprAdd, exprSub, exprMul:
		p := e.precedence()
		e.a.write(b, p)
		switch e.kind {
		case exprAdd:
			b.WriteString("+")
		case exprSub:
			b.WriteString("-")
		default:
			b.WriteString("*")
		}
		// The right operand binds tighter: a-(b-c), a*(b*c) keep their
		// parentheses.
		e.b.write(b, p+1)
	}
	if paren {
		b.WriteByte(')')
	}
}

// errOverflow is the fault of a value beyond int64.
var errOverflow = errors.New("integer overflow")

func addInt(a, b int64) (int64, error) {
	c := a + b
	if (c > a) != (b > 0) {
		return 0, errOverflow
	}
	return c, nil
}

func subInt(a, b int64) (int64, error) {
	c := a - b
	if (c < a) != (b > 0) {
		return 0, errOverflow
	}
	return c, nil
}

func mulInt(a, b int64) (int64, error) {
	if a == 0 || b == 0 {
		return 0, nil
	}
	c := a * b
	if (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) || c/b != a {
		return 0, errOverflow
	}
	return c, nil
}

func negInt(a int64) (int64, error) {
	if a == math.MinInt64 {
		return 0, errOverflow
	}
	return -a, nil
}

// eval evaluates e with the names' values given by value.
func (e *expr) eval(value func(name string) (int64, bool)) (int64, error) {
	switch e.kind {
	case exprNum:
		return e.n, nil
	case exprName:
		v, ok := value(e.name)
		if !ok {
			return 0, fmt.Errorf("unknown name %q", e.name)
		}
		return v, nil
	}
	a, err := e.a.eval(value)
	if err != nil {
		return 0, err
	}
	if e.kind == exprNeg {
		return negInt(a)
	}
	b, err := e.b.eval(value)
	if err != nil {
		return 0, err
	}
	switch e.kind {
	case exprAdd:
		return addInt(a, b)
	case exprSub:
		return subInt(a, b)
	}
	return mulInt(a, b)
}

// The operations of a program.
const (
	opConst uint8 = iota // push n
	opSlot               // push the value of slot n
	opNeg
	opAdd
	opSub
	opMul
)

type op struct {
	code uint8
	n    int64
}

// program is a compiled expression: the sizes folded in, the loop indices
// read from slots. A program of one opConst is a constant.
type program struct {
	ops   []op
	stack []int64
}

// names is what a program may use: sizes (replaced by their values) and
// the loop indices so far (slots, in order).
type names struct {
	sizes   map[string]int64
	sizeOrd []string // the sizes in file order, for errors
	indices []string // the loop indices in scope, outermost first
}

// slot returns the slot of the index name, -1 when it is none.
func (n *names) slot(name string) int {
	for i := len(n.indices) - 1; i >= 0; i-- {
		if n.indices[i] == name {
			return i
		}
	}
	return -1
}

// unknown is the error for a name that is neither a size nor an index.
func (n *names) unknown(name string) error {
	sizes := "none"
	if len(n.sizeOrd) > 0 {
		sizes = strings.Join(n.sizeOrd, ", ")
	}
	if len(n.indices) == 0 {
		return fmt.Errorf("unknown name %q (sizes: %s; no loop index here)", shorten(name), sizes)
	}
	return fmt.Errorf("unknown name %q (sizes: %s; loop indices: %s)", shorten(name), sizes, strings.Join(n.indices, ", "))
}

// compile turns e into a program over the names of n, folding constants.
func compile(e *expr, n *names) (*program, error) {
	p := &program{}
	depth, err := p.emit(e, n)
	if err != nil {
		return nil, err
	}
	p.stack = make([]int64, 0, depth)
	return p, nil
}

// emit appends the operations of e and returns the stack depth they need.
func (p *program) emit(e *expr, n *names) (int, error) {
	switch e.kind {
	case exprNum:
		p.ops = append(p.ops, op{code: opConst, n: e.n})
		return 1, nil
	case exprName:
		if s := n.slot(e.name); s >= 0 {
			p.ops = append(p.ops, op{code: opSlot, n: int64(s)})
			return 1, nil
		}
		v, ok := n.sizes[e.name]
		if !ok {
			return 0, n.unknown(e.name)
		}
		p.ops = append(p.ops, op{code: opConst, n: v})
		return 1, nil
	}
	da, err := p.emit(e.a, n)
	if err != nil {
		return 0, err
	}
	if e.kind == exprNeg {
		if last := &p.ops[len(p.ops)-1]; last.code == opConst {
			v, err := negInt(last.n)
			if err != nil {
				return 0, fmt.Errorf("%s: %v", shorten(e.String()), err)
			}
			last.n = v
			return da, nil
		}
		p.ops = append(p.ops, op{code: opNeg})
		return da, nil
	}
	db, err := p.emit(e.b, n)
	if err != nil {
		return 0, err
	}
	code := opMul
	switch e.kind {
	case exprAdd:
		code = opAdd
	case exprSub:
		code = opSub
	}
	// Fold two constants: an operand whose last operation is a constant
	// is that one constant (an operator comes last otherwise).
	if k := len(p.ops); p.ops[k-1].code == opConst && p.ops[k-2].code == opConst {
		v, err := apply(code, p.ops[k-2].n, p.ops[k-1].n)
		if err != nil {
			return 0, fmt.Errorf("%s: %v", shorten(e.String()), err)
		}
		p.ops = append(p.ops[:k-2], op{code: opConst, n: v})
		return 1, nil
	}
	p.ops = append(p.ops, op{code: code})
	return max(da, db+1), nil
}

func apply(code uint8, a, b int64) (int64, error) {
	switch code {
	case opAdd:
		return addInt(a, b)
	case opSub:
		return subInt(a, b)
	}
	return mulInt(a, b)
}

// constant returns the value of a program without slots.
func (p *program) constant() (int64, bool) {
	if len(p.ops) == 1 && p.ops[0].code == opConst {
		return p.ops[0].n, true
	}
	return 0, false
}

// eval runs the program with the loop values vals (by slot).
func (p *program) eval(vals []int64) (int64, error) {
	if len(p.ops) == 1 {
		o := p.ops[0]
		if o.code == opConst {
			return o.n, nil
		}
		return vals[o.n], nil
	}
	st := p.stack[:0]
	for _, o := range p.ops {
		switch o.code {
		case opConst:
			st = append(st, o.n)
		case opSlot:
			st = append(st, vals[o.n])
		case opNeg:
			v, err := negInt(st[len(st)-1])
			if err != nil {
				return 0, err
			}
			st[len(st)-1] = v
		default:
			k := len(st)
			v, err := apply(o.code, st[k-2], st[k-1])
			if err != nil {
				return 0, err
			}
			st = append(st[:k-2], v)
		}
	}
	return st[0], nil
}
