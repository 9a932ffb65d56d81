// Package widget is a package whose doc comments the tests of misusetest
// read.
package widget

// Max is the largest widget.
const Max = 10

// Default is the widget New returns for
// a size of 0.
var Default = Widget{}

// Widget is a widget. The zero Widget is
// ready to use.
type Widget struct{}

// Kind is a kind of widget.
type Kind int

// Round is the round kind.
const Round Kind = 1

// New returns a widget of the given size.
func New(size int) Widget { return Widget{} }

// Grow grows w. It panics for a negative n.
func (w Widget) Grow(n int) {}
