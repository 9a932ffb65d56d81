package model

import (
	"strconv"
	"unsafe"
)

// fieldNames makes the names of many elements' fields ("factors[12]",
// `variables[3] ("x3")`, "factors[12] (normal)"), which reading and
// building a file need in case of an error: a written-out file of 10^5
// steps has 4·10^5 of them. They are written into shared chunks of text
// rather than allocated one by one. Bytes handed out are never written
// again: append only writes past the length, and a name that does not fit
// moves the chunk, leaving the names before it where they were.
type fieldNames struct{ buf []byte }

// fieldChunk is the size of a chunk of names.
const fieldChunk = 16 << 10

// start readies the chunk for a name and returns where it starts.
func (a *fieldNames) start() int {
	if cap(a.buf)-len(a.buf) < 64 {
		a.buf = make([]byte, 0, fieldChunk)
	}
	return len(a.buf)
}

// end returns the name written since from.
func (a *fieldNames) end(from int) string {
	if len(a.buf) == from {
		return ""
	}
	return unsafe.String(&a.buf[from], len(a.buf)-from)
}

// indexed returns name[i] (as the function indexed does).
func (a *fieldNames) indexed(name string, i int) string {
	if a == nil {
		return indexed(name, i)
	}
	from := a.start()
	a.buf = append(append(a.buf, name...), '[')
	a.buf = append(strconv.AppendInt(a.buf, int64(i), 10), ']')
	return a.end(from)
}

// named returns name[i] ("label"), label quoted as %q quotes it.
func (a *fieldNames) named(name string, i int, label string) string {
	from := a.start()
	a.buf = append(append(a.buf, name...), '[')
	a.buf = append(strconv.AppendInt(a.buf, int64(i), 10), "] ("...)
	a.buf = append(strconv.AppendQuote(a.buf, label), ')')
	return a.end(from)
}

// join returns field (node).
func (a *fieldNames) join(field, node string) string {
	if a == nil {
		return field + " (" + node + ")"
	}
	from := a.start()
	a.buf = append(append(append(append(a.buf, field...), " ("...), node...), ')')
	return a.end(from)
}
