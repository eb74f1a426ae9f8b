//go:build !unix

package registry_test

import "errors"

func mkfifo(string) error { return errors.New("named pipes need a unix system") }
