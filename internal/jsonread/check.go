package jsonread

import "encoding/binary"

// MaxDepth is the deepest nesting of arrays and objects accepted, that
// of encoding/json (whose syntax errors are reported for a fault).
const MaxDepth = 10000

// Fault is what Check found wrong with a text.
type Fault uint8

// The faults of a text, Valid for none.
const (
	Valid     Fault = iota // one JSON value surrounded by white space
	Empty                  // nothing but white space
	Truncated              // the text ends inside the value
	Trailing               // a complete value, then more than white space
	BadByte                // a byte that cannot stand where it is
)

// Check reports whether data is one JSON value surrounded by white
// space, with the offset of the fault: of the byte at fault, or len(data)
// for Empty and Truncated. It accepts exactly what encoding/json
// accepts (nesting included), and allocates only its stack of open
// containers.
func Check(data []byte) (Fault, int) {
	var stack []byte // '{' or '[' for each open container
	i := Space(data, 0)
	if i == len(data) {
		return Empty, i
	}
	for {
		// A value starts at i.
		if i == len(data) {
			return Truncated, i
		}
		var f Fault
		switch c := data[i]; c {
		case '{', '[':
			if len(stack) == MaxDepth {
				return BadByte, i
			}
			i = Space(data, i+1)
			if i == len(data) {
				return Truncated, i
			}
			if data[i] == c+2 { // '}' and ']' follow their openers by 2
				i++
				break
			}
			stack = append(stack, c)
			if c == '{' {
				if i, f = checkKey(data, i); f != Valid {
					return f, i
				}
			}
			continue
		case '"':
			if i, f = CheckString(data, i); f != Valid {
				return f, i
			}
		case 't':
			if i, f = CheckWord(data, i, "true"); f != Valid {
				return f, i
			}
		case 'f':
			if i, f = CheckWord(data, i, "false"); f != Valid {
				return f, i
			}
		case 'n':
			if i, f = CheckWord(data, i, "null"); f != Valid {
				return f, i
			}
		default:
			if c != '-' && (c < '0' || c > '9') {
				return BadByte, i
			}
			if i, f = CheckNumber(data, i); f != Valid {
				return f, i
			}
		}
		// A value ended at i: close containers until the next value.
		for {
			i = Space(data, i)
			if len(stack) == 0 {
				if i == len(data) {
					return Valid, i
				}
				return Trailing, i
			}
			if i == len(data) {
				return Truncated, i
			}
			top := stack[len(stack)-1]
			if data[i] == top+2 {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if data[i] != ',' {
				return BadByte, i
			}
			i = Space(data, i+1)
			if top == '[' {
				// A run of numbers, the bulk of a model file, in a
				// tighter loop.
				ended := false // a number ended at i, not followed by a comma
				for i < len(data) && byteClass[data[i]] == classNumber {
					if i, f = CheckNumber(data, i); f != Valid {
						return f, i
					}
					j := i
					if j < len(data) && data[j] != ',' {
						j = Space(data, j)
					}
					if j < len(data) && data[j] == ',' {
						if i = j + 1; i < len(data) && byteClass[data[i]] != classNumber {
							i = Space(data, i)
						}
						continue
					}
					ended = true
					break
				}
				if ended {
					continue
				}
			}
			if top == '{' {
				if i, f = checkKey(data, i); f != Valid {
					return f, i
				}
			}
			break
		}
	}
}

// checkKey checks an object key and its colon at i, returning the
// start of the value.
func checkKey(data []byte, i int) (int, Fault) {
	if i == len(data) {
		return i, Truncated
	}
	if data[i] != '"' {
		return i, BadByte
	}
	i, f := CheckString(data, i)
	if f != Valid {
		return i, f
	}
	i = Space(data, i)
	if i == len(data) {
		return i, Truncated
	}
	if data[i] != ':' {
		return i, BadByte
	}
	return Space(data, i+1), Valid
}

// CheckString checks the string literal at i, returning its end or the
// offset of its fault.
func CheckString(data []byte, i int) (int, Fault) {
	for i++; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			return i + 1, Valid
		case c < 0x20:
			return i, BadByte
		case c == '\\':
			i++
			if i == len(data) {
				return i, Truncated
			}
			switch data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for range 4 {
					i++
					if i == len(data) {
						return i, Truncated
					}
					if c := data[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
						return i, BadByte
					}
				}
			default:
				return i, BadByte
			}
		}
	}
	return i, Truncated
}

// CheckWord checks the literal word (true, false or null) at i, which
// starts with the first letter of word, returning its end or the offset
// of its fault.
func CheckWord(data []byte, i int, word string) (int, Fault) {
	for k := 1; k < len(word); k++ {
		if i+k == len(data) {
			return i + k, Truncated
		}
		if data[i+k] != word[k] {
			return i + k, BadByte
		}
	}
	return i + len(word), Valid
}

// CheckNumber checks the number at i, which starts with '-' or a digit,
// returning its end or the offset of its fault.
func CheckNumber(data []byte, i int) (int, Fault) {
	if c := data[i]; c >= '1' && c <= '9' || c == '0' && (i+1 == len(data) || data[i+1] == ',' || data[i+1] == ']') {
		// An integer, the most common number (0 and 1 in matrices).
		for i++; i < len(data) && '0' <= data[i] && data[i] <= '9'; i++ {
		}
		if i == len(data) || data[i] != '.' && data[i] != 'e' && data[i] != 'E' {
			return i, Valid
		}
		return checkFraction(data, i)
	}
	if data[i] == '-' {
		i++
	}
	var f Fault
	if i < len(data) && data[i] == '0' {
		i++
	} else if i, f = checkDigits(data, i); f != Valid {
		return i, f
	}
	return checkFraction(data, i)
}

// checkFraction checks the fraction and exponent, if any, of the
// number whose integer part ends at i.
func checkFraction(data []byte, i int) (int, Fault) {
	var f Fault
	if i < len(data) && data[i] == '.' {
		if i, f = checkDigits(data, i+1); f != Valid {
			return i, f
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i, f = checkDigits(data, i); f != Valid {
			return i, f
		}
	}
	return i, Valid
}

// checkDigits checks one digit or more at i, returning their end.
func checkDigits(data []byte, i int) (int, Fault) {
	if i == len(data) {
		return i, Truncated
	}
	if data[i] < '0' || data[i] > '9' {
		return i, BadByte
	}
	for i++; i < len(data) && '0' <= data[i] && data[i] <= '9'; i++ {
	}
	return i, Valid
}

// Space returns the offset of the first byte at or after i that is
// not JSON white space.
func Space(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// stringEnd returns the end of the string literal at i.
func stringEnd(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '"':
			return i + 1
		case '\\':
			i++
		}
	}
	return len(data)
}

// byteClass sorts the bytes that matter when skipping valid JSON.
var byteClass = [256]uint8{
	'"': classQuote, '[': classOpen, '{': classOpen, ']': classClose, '}': classClose,
	'-': classNumber, '0': classNumber, '1': classNumber, '2': classNumber, '3': classNumber, '4': classNumber,
	'5': classNumber, '6': classNumber, '7': classNumber, '8': classNumber, '9': classNumber,
}

const (
	classOther uint8 = iota
	classQuote
	classOpen
	classClose
	classNumber
)

// structural reports whether any byte of the 8 in x is '"', '[', ']',
// '{' or '}': x|0x20 maps '[' and ']' to '{' and '}' (and nothing else to
// them), and a byte equal to b leaves a zero byte in x^b, which the usual
// bit trick finds.
func structural(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) &^ v & highs }
	y := x | 0x20*ones
	return zero(x^'"'*ones)|zero(y^'{'*ones)|zero(y^'}'*ones) != 0
}

// Skip returns the end of the valid JSON value at i.
func Skip(data []byte, i int) int {
	if i >= len(data) {
		return i
	}
	switch byteClass[data[i]] {
	case classQuote:
		return stringEnd(data, i)
	case classOpen:
	default:
		return WordEnd(data, i)
	}
	depth := 0
	for ; i < len(data); i++ {
		// Eight bytes at a time past those that do not matter.
		for i+8 <= len(data) && !structural(binary.LittleEndian.Uint64(data[i:])) {
			i += 8
		}
		if i >= len(data) {
			break
		}
		switch byteClass[data[i]] {
		case classOther, classNumber:
		case classQuote:
			i = stringEnd(data, i) - 1
		case classOpen:
			depth++
		case classClose:
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return i
}

// WordEnd returns the end of the number or literal word at i.
func WordEnd(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case ',', ']', '}', ':', ' ', '\t', '\n', '\r', '"', '[', '{':
			return i
		}
	}
	return i
}

// ArrayLen returns the number of elements of the valid JSON array that
// starts at i (after any white space), or 0 if no array starts there: a
// decoder gives the slices it reads the elements into their final size
// first (a pass that skips each element, cheaper than the copies of
// slices that grow).
func ArrayLen(data []byte, i int) int { return arrayCount(data, i, false) }

// ArrayObjects returns the number of elements of the valid JSON array that
// starts at i (after any white space) that are objects, or 0 if no array
// starts there. A decoder calls it to give a slice of records read from
// objects its final size before it reads them (a pass that skips each
// element, cheaper than the copies of a slice that grows); elements of
// other kinds, which the decoder refuses, reserve nothing, so a long array
// of numbers does not make the decoder reserve a record per number.
func ArrayObjects(data []byte, i int) int { return arrayCount(data, i, true) }

// arrayCount counts the elements of the array at i, or only its objects.
func arrayCount(data []byte, i int, objects bool) int {
	i = Space(data, i)
	if i >= len(data) || data[i] != '[' {
		return 0
	}
	i = Space(data, i+1)
	if i < len(data) && data[i] == ']' {
		return 0
	}
	n := 0
	for i < len(data) {
		if !objects || data[i] == '{' {
			n++
		}
		i = Space(data, Skip(data, i))
		if i >= len(data) || data[i] != ',' {
			break
		}
		i = Space(data, i+1)
	}
	return n
}
