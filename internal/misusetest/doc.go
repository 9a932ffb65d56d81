// Package misusetest runs a package's table of API misuses: wrong calls
// made from outside the package (a nil or zero receiver, an index out of
// range, a nil argument, calls in the wrong order), each with what the
// package promises to do about it. Only test files import it, much as
// gonum's blas/testblas or go/analysis's analysistest serve the tests of
// other packages; its code uses the standard library only.
//
// A Case is one misuse. Its Call makes the wrong call and returns its
// error (or, for a call the package accepts, the failure of a check of
// what the call did). The case wants one of three outcomes:
//
//   - An error (the default). The call must return an error and must not
//     panic. The error's message must start with the package's prefix
//     ("ffg: "), or with the case's own Prefix when the error names a field
//     or comes from another package ("step 0: ", "pomdp: "), or have the
//     other form Runner.Or accepts; and it must contain Msg.
//   - A documented panic (Panics names a doc comment). The call must panic,
//     the panic's message must contain Msg, and the doc comment named by
//     Panics must say "panic" and contain Says: a panic is kept for a
//     programming error the documentation warns of, as strings.Repeat
//     panics on a negative count.
//   - A documented meaning (OK names a doc comment). The call must neither
//     panic nor return an error, and the doc comment named by OK must exist
//     and contain Says: a nil context taken as context.Background, the
//     zero value ready to use.
//
// Any other panic fails the case, whatever its value: a nil dereference
// or an index out of range inside the package is a crash the caller was
// not warned of, not an answer. A case that wants an error fails if the
// call returns nil. A case that mixes the outcomes (both Panics and OK,
// Says without either, Msg or Prefix with OK, Prefix with Panics) or has
// no Call is malformed and fails.
//
// The doc comments are read from the non-test Go files of the package in
// the current directory (go test runs a package's tests there) and named
// as go doc names them: "F" for a function, "T" for a type, "T.M" for a
// method, and a constant or variable by its name. Says is matched with
// runs of white space taken as one space, so a phrase may span the lines
// of the comment. Naming the comment in the case means that the behaviour
// cannot change, nor its documentation silently go, without a test
// failing.
package misusetest
