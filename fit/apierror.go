package fit

import "github.com/arbor-ai/arbor/internal/apierr"

// errPrefix starts every error that an exported function or method of the
// package returns, once (docs/reliability.md, "Error messages").
const errPrefix = "fit: "

// apiError is err as an exported function or method returns it
// (apierr.Wrap): nil for nil, err itself when its message starts with
// errPrefix already, and otherwise err behind the prefix, wrapped so that
// errors.Is and errors.As still find what it wraps. An error of another
// arbor package keeps its own prefix after ours ("aci: pomdp: ...").
func apiError(err error) error { return apierr.Wrap(errPrefix, err) }

// inContext is err, an error of the package's exported API, with context
// (a file's name, the field of an option) after the prefix:
// "PREFIX CONTEXT: REST" (apierr.InContext). It wraps err.
func inContext(context string, err error) error { return apierr.InContext(errPrefix, context, err) }
