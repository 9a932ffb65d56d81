// Package behaviour reads and writes recorded behaviour: what a participant
// (or a simulated agent) saw and chose, trial by trial, in the CSV or
// JSON-lines format of docs/behaviour.md, checked against the generative
// model of package pomdp that names its outcomes and controls.
//
//   - Reader reads one subject at a time (NewReader, Next; Read reads all
//     of an input at once) into a SubjectRecord: the subject's trials, each
//     a TrialRecord of joint observation and action indices, the outcome
//     of every modality, the source line of every step and the values of
//     the extra columns, ready for agent.Replay. The format, CSV or JSON
//     lines, is detected from the first byte; Options bounds the bytes read
//     and the length of a line (DefaultMaxBytes, DefaultMaxLineBytes), and
//     MaxJSONExtra the distinct extra keys of JSON lines.
//   - Writer writes the same format (NewWriter, WriteStep, WriteSubject,
//     Flush), names where the model has them and indices otherwise, so
//     that what it writes reads back the same; WriterOptions chooses JSON
//     lines and the extra columns.
//   - Error is a fault in the input: the file, the line, the column or
//     field, and what is wrong, on one line.
//
// # Misuse
//
// Every fault of the input is an *Error; the misuse of the API (a nil
// model, reader or writer, the zero Reader or Writer, a value out of range
// given to WriteStep) is an error that starts with "behaviour: ". Nothing
// in the package panics on its input. A Reader or Writer is not safe for
// concurrent use.
package behaviour
