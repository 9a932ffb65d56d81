package shard

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Lines splits text into its lines, without their newlines: the CSV
// output a command writes before its first unit's rows (its header), as
// Manifest.Head holds it.
func Lines(text []byte) []string {
	var lines []string
	for _, l := range bytes.SplitAfter(text, []byte{'\n'}) {
		if len(l) > 0 {
			lines = append(lines, string(bytes.TrimSuffix(l, []byte{'\n'})))
		}
	}
	return lines
}

// Rows writes the lines of text (CSV rows, each ending in a newline) as
// output lines of unit, each a JSON string (Manifest.Lines "csv").
func (w *Writer) Rows(unit int, text []byte) error {
	for _, row := range Lines(text) {
		q, err := json.Marshal(row)
		if err != nil {
			return err
		}
		if err := w.Line(unit, q); err != nil {
			return err
		}
	}
	return nil
}

// Fields calls fn with every key of the JSON object line (an output line
// of a shard) and its value's text (a string's with its quotes), without
// decoding the values (nested objects and arrays are skipped whole), so
// that a merge can sum a few fields of millions of records. It checks only
// what it needs to find them: an object, its strings closed, its brackets
// balanced.
func Fields(line []byte, fn func(key, val []byte)) error {
	i := 0
	skipSpace := func() {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\n' || line[i] == '\r') {
			i++
		}
	}
	str := func() ([]byte, error) { // at a '"': the string's contents
		start := i + 1
		for i++; i < len(line); i++ {
			switch line[i] {
			case '\\':
				i++
			case '"':
				i++
				return line[start : i-1], nil
			}
		}
		return nil, errors.New("a string that does not end")
	}
	skipSpace()
	if i >= len(line) || line[i] != '{' {
		return errors.New("not a JSON object")
	}
	i++
	for {
		skipSpace()
		if i < len(line) && line[i] == '}' {
			return nil
		}
		if i >= len(line) || line[i] != '"' {
			return errors.New("not a JSON object")
		}
		key, err := str()
		if err != nil {
			return err
		}
		skipSpace()
		if i >= len(line) || line[i] != ':' {
			return errors.New("not a JSON object")
		}
		i++
		skipSpace()
		start, depth := i, 0
	value:
		for ; i < len(line); i++ {
			switch line[i] {
			case '"':
				if _, err := str(); err != nil {
					return err
				}
				i--
			case '[', '{':
				depth++
			case ']', '}':
				if depth == 0 {
					break value
				}
				depth--
			case ',':
				if depth == 0 {
					break value
				}
			}
		}
		if i >= len(line) || depth != 0 {
			return errors.New("not a JSON object")
		}
		fn(key, bytes.TrimRight(line[start:i], " \t\r\n"))
		if line[i] == '}' {
			return nil
		}
		i++
	}
}
