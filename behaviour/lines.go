package behaviour

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"
)

// lineReader reads the input a line at a time, counting lines and bytes
// and checking each line's length and encoding.
type lineReader struct {
	br      *bufio.Reader
	name    string
	max     int64
	maxLine int
	total   int64
	line    int // number of the last line read
	buf     []byte
	err     error // sticky
}

func newLineReader(r io.Reader, name string, max int64, maxLine int) *lineReader {
	size := 4 << 10 // longer lines are gathered in buf
	if maxLine+1 < size {
		size = maxLine + 1
	}
	return &lineReader{
		br:   bufio.NewReaderSize(io.LimitReader(r, max+1), size),
		name: name, max: max, maxLine: maxLine,
	}
}

// next returns the next line with its newline (none at the end of the
// input), valid until the next call, or io.EOF after the last.
func (l *lineReader) next() ([]byte, error) {
	if l.err != nil {
		return nil, l.err
	}
	l.line++
	line, err := l.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		l.buf = append(l.buf[:0], line...)
		for err == bufio.ErrBufferFull && len(l.buf) <= l.maxLine+2 {
			line, err = l.br.ReadSlice('\n')
			l.buf = append(l.buf, line...)
		}
		line = l.buf
	}
	l.total += int64(len(line))
	fault := func(format string, args ...any) ([]byte, error) {
		l.err = &Error{File: l.name, Line: l.line, Msg: fmt.Sprintf(format, args...)}
		return nil, l.err
	}
	if l.total > l.max {
		return fault("file larger than %d bytes (behaviour.Options.MaxBytes)", l.max)
	}
	n := len(line)
	if n > 0 && line[n-1] == '\n' {
		n--
		if n > 0 && line[n-1] == '\r' {
			n--
		}
	}
	if n > l.maxLine {
		return fault("line longer than %d bytes (behaviour.Options.MaxLineBytes)", l.maxLine)
	}
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return fault("read: %v", err)
	}
	if len(line) == 0 {
		l.line--
		l.err = io.EOF
		return nil, io.EOF
	}
	if l.line == 1 {
		line = bytes.TrimPrefix(line, []byte("\uFEFF"))
	}
	if !utf8.Valid(line) {
		at := 0
		for at < len(line) {
			c, size := utf8.DecodeRune(line[at:])
			if c == utf8.RuneError && size <= 1 {
				break
			}
			at += size
		}
		return fault("not valid UTF-8 (byte %d of the line)", at+1)
	}
	return line, nil
}

// lineSource feeds the lines of a lineReader to encoding/csv, passing its
// errors through.
type lineSource struct {
	lr      *lineReader
	pending []byte
}

func (s *lineSource) Read(p []byte) (int, error) {
	for len(s.pending) == 0 {
		line, err := s.lr.next()
		if err != nil {
			return 0, err
		}
		s.pending = line
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}
