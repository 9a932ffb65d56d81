// Package jsonread is the validating JSON reader of arbor's file formats:
// the model file of package model and the POMDP file of package pomdp
// (docs/formats.md), both of which may hold tens of megabytes of numbers.
//
// Reading a text takes two passes over its bytes. Check validates the
// syntax without allocating (beyond a stack of open containers); then a
// Reader walks the valid text, and the decoders of model and pomdp take
// from it only the values they expect (Object, Array, ReadString,
// ReadNumber, ReadTensor), refusing a wrong type at its first token (Kind
// names it as encoding/json's type errors do) and skipping what they do
// not read (Skip). Nested arrays of numbers are read by ReadTensor
// straight into one flat []float64 of exactly the right size (the numbers
// are counted first), so that a file costs its size plus 8 bytes per
// number, not a tree of interfaces or copies of its text.
//
// The contract:
//
//   - Check accepts exactly what encoding/json accepts, nesting up to
//     MaxDepth included. With a Fault it returns the offset of the byte at
//     fault (one less than the Offset of encoding/json's syntax error,
//     which counts that byte), or the length of the text when the text is
//     empty or ends too soon, so that a caller can word the error as
//     encoding/json does.
//   - A Reader is only for a text that Check found valid: its methods do
//     not check the syntax again, but never index out of range or panic on
//     any text; a decoder that loses step with the text gets ErrOutOfStep.
//   - Strings are decoded as encoding/json decodes them, and numbers
//     converted as it converts them (Float, Int); a number out of the range
//     of float64 is a fault, not ±Inf.
//   - Every fault carries its position: the offset in the text (Check, the
//     at argument of Object, TensorFault.Off) and, inside a tensor, the
//     indices of the value at fault (TensorFault.Path, written by Indices).
//     The wording of errors (line and column, the path of the field, the
//     name of a factor) is left to the callers, whose messages stay theirs.
//   - NameFault is the rule, shared by both formats, for names that are fit
//     to print in a line of output; Shorten, Quote and NameList are how an
//     error of the POMDP and recorded-behaviour readers quotes input (at
//     most MaxQuoted bytes of it).
//
// The package imports the standard library only, and nothing of arbor:
// it is the one package under internal/ that library packages may import
// (docs/architecture.md, "Who may import whom").
package jsonread
