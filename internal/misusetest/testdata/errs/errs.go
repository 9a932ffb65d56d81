// Package errs is a package whose returns the tests of misusetest check:
// the functions named Good follow the rule of Returns, those named Bad
// break it on the line that says so.
package errs

import (
	"errors"
	"fmt"
)

func wrap(err error) error { return err }

func helper() error { return errors.New("no prefix: a helper's error is wrapped") }

// GoodLiteral returns literals with the prefix.
func GoodLiteral(n int) (int, error) {
	if n < 0 {
		return 0, fmt.Errorf("errs: n %d", n)
	}
	if n == 0 {
		return 0, errors.New("errs: n 0")
	}
	return n, nil
}

// GoodWrapped wraps what it passes up, and its function literal is its
// own.
func GoodWrapped() error {
	f := func() error { return helper() }
	if err := f(); err != nil {
		return wrap(err)
	}
	return nil
}

// unexported is not checked.
func unexported() error { return helper() }

type T struct{}

// Unwrap is not checked.
func (T) Unwrap() error { return helper() }

// BadLiteral returns a literal without the prefix.
func BadLiteral() error {
	return errors.New("n 0") // bad
}

// BadPassed passes a helper's error up unwrapped.
func (T) BadPassed() (int, error) {
	err := unexported()
	return 0, err // bad
}

// BadTwice has a literal with the prefix twice.
func BadTwice() error {
	return fmt.Errorf("errs: errs: %d", 1) // bad
}
