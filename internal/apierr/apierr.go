// Package apierr is the one rule of arbor's library packages for the
// errors of their exported API (docs/reliability.md, "Error messages"):
// a message starts with the package's prefix ("aci: "), exactly once, and
// wraps what it was made from, so that errors.Is and errors.As still find
// it. Each package binds its prefix in small functions of its own
// (apiError, apiResult, inContext, reason), which its source-level test
// recognises.
//
// It is a leaf: it imports the standard library only, and any package,
// library code included, may import it (docs/architecture.md).
package apierr

import (
	"fmt"
	"strings"
)

// Wrap returns err as an exported function or method of the package whose
// prefix is prefix returns it: nil for nil, err itself when its message
// starts with the prefix already (an error of another exported function of
// the package, or one made with the prefix), and otherwise err behind the
// prefix, wrapped. An error of another arbor package keeps its own prefix
// after the package's ("aci: pomdp: ...").
func Wrap(prefix string, err error) error {
	if err == nil {
		return nil
	}
	if strings.HasPrefix(err.Error(), prefix) {
		return err
	}
	return fmt.Errorf("%s%w", prefix, err)
}

// InContext returns err, an error of the package's exported API, with
// context (a file's name, the field of an option) after the prefix:
// "PREFIX CONTEXT: REST", REST being err's message without the prefix. It
// wraps err.
func InContext(prefix, context string, err error) error {
	return &contextError{prefix + context + ": " + strings.TrimPrefix(err.Error(), prefix), err}
}

// contextError is an error with its context, from InContext.
type contextError struct {
	msg string
	err error
}

func (e *contextError) Error() string { return e.msg }

func (e *contextError) Unwrap() error { return e.err }

// Reason returns err's message without the prefix: for a message that puts
// its own context first (a flag's error) and gets the prefix in front of
// that.
func Reason(prefix string, err error) string { return strings.TrimPrefix(err.Error(), prefix) }
