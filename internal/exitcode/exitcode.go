// Package exitcode defines routebench's exit codes, in one place (DESIGN §7),
// and errors that carry them. The first code attached to an error wins.
package exitcode

import (
	"errors"
	"fmt"
)

const (
	Pass       = 0 // everything ran and every gate passed
	GateFailed = 1 // a threshold or regression rule was crossed
	Usage      = 2 // bad flags, config or input files
	RunError   = 3 // a provider failed beyond its retry, or the run could not finish
)

// Error is an error with an exit code.
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// With attaches code to err unless err already carries one.
func With(code int, err error) error {
	if err == nil {
		return nil
	}
	var ce *Error
	if errors.As(err, &ce) {
		return err
	}
	return &Error{Code: code, Err: err}
}

// Usagef is a usage, config or input error (exit 2).
func Usagef(format string, args ...any) error {
	return &Error{Code: Usage, Err: fmt.Errorf(format, args...)}
}

// Of returns the exit code for err: 0 for nil, the attached code, or
// RunError for an error that carries none.
func Of(err error) int {
	if err == nil {
		return Pass
	}
	var ce *Error
	if errors.As(err, &ce) {
		return ce.Code
	}
	return RunError
}
