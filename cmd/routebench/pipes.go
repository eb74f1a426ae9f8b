package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/routebench/routebench/harness"
)

// spoolPipes copies every path that is a pipe (`<(git show
// main:out/results.jsonl)`, /dev/stdin) to a regular file in a temporary
// folder, since a results file is read more than once and a pipe only
// once. Regular files and folders are returned as they are; a device
// (/dev/zero, which never ends) is refused. done removes the copies.
func spoolPipes(paths []string) (out []string, done func(), err error) {
	var dir string
	done = func() {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	out = make([]string, len(paths))
	for i, p := range paths {
		out[i] = p
		st, serr := os.Stat(p)
		if serr != nil || st.Mode().IsRegular() || st.IsDir() {
			continue // a missing path is reported by whoever reads it
		}
		if err := harness.NotResults(p, st.Mode()); err != nil {
			return nil, done, err
		}
		if dir == "" {
			if dir, err = os.MkdirTemp("", "routebench-pipes-"); err != nil {
				return nil, done, fmt.Errorf("copy %s: %w", p, err)
			}
		}
		out[i] = filepath.Join(dir, fmt.Sprintf("%d-%s", i, filepath.Base(p)))
		if err := copyToFile(out[i], p); err != nil {
			done()
			return nil, func() {}, fmt.Errorf("copy %s: %w", p, err)
		}
	}
	return out, done, nil
}

func copyToFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
