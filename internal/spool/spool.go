// Package spool keeps bytes written once and read back in order, such as
// records gathered in a pass to be used after it: in memory while they
// are few, then in a temporary file, so a pass over a million results
// does not hold a million records.
package spool

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// Spool is an append-only byte store. It is not safe for concurrent
// writes; readers from Reader may run side by side once writing is done.
type Spool struct {
	name     string
	inMemory int
	buf      []byte
	// file holds the first size bytes, buf the rest; nil until buf
	// outgrows inMemory. It is unlinked at once, so it goes when it is
	// closed or the process ends, whatever happens in between.
	file *os.File
	size int64
	err  error
}

// New starts an empty spool that keeps up to inMemory bytes in memory;
// name says what it holds, in its temporary file's name and its errors.
func New(name string, inMemory int) *Spool { return &Spool{name: name, inMemory: inMemory} }

// Write appends p. After a failed write every later one fails the same way.
func (s *Spool) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	s.buf = append(s.buf, p...)
	if len(s.buf) > s.inMemory {
		s.flush()
	}
	return len(p), s.err
}

func (s *Spool) flush() {
	if s.err != nil || len(s.buf) == 0 {
		return
	}
	if s.file == nil {
		f, err := os.CreateTemp("", "routebench-"+s.name+"-*")
		if err != nil {
			s.err = fmt.Errorf("keep %s: %w", s.name, err)
			return
		}
		os.Remove(f.Name())
		s.file = f
	}
	n, err := s.file.WriteAt(s.buf, s.size)
	s.size += int64(n)
	if err != nil {
		s.err = fmt.Errorf("keep %s: %w", s.name, err)
		return
	}
	s.buf = s.buf[:0]
}

// Len is how many bytes have been written.
func (s *Spool) Len() int64 { return s.size + int64(len(s.buf)) }

// Truncate drops everything written after the first n bytes.
func (s *Spool) Truncate(n int64) error {
	if s.err != nil {
		return s.err
	}
	switch {
	case n < 0 || n > s.Len():
		return fmt.Errorf("keep %s: truncate to %d of %d bytes", s.name, n, s.Len())
	case n >= s.size:
		s.buf = s.buf[:n-s.size]
	default:
		if err := s.file.Truncate(n); err != nil {
			s.err = fmt.Errorf("keep %s: %w", s.name, err)
			return s.err
		}
		s.size, s.buf = n, s.buf[:0]
	}
	return nil
}

// Reader reads everything written so far from the start. Writes and
// truncations after it may change what a reader not yet done sees.
func (s *Spool) Reader() (io.Reader, error) {
	return s.section()
}

// ReaderAt is Reader for records read at their offsets (Len before each
// was written), in any order.
func (s *Spool) ReaderAt() (io.ReaderAt, error) {
	return s.section()
}

// section is everything written so far, read from the start or at offsets.
func (s *Spool) section() (*io.SectionReader, error) {
	if s.file != nil {
		s.flush()
	}
	if s.err != nil {
		return nil, s.err
	}
	if s.file == nil {
		return io.NewSectionReader(bytes.NewReader(s.buf), 0, int64(len(s.buf))), nil
	}
	return io.NewSectionReader(s.file, 0, s.size), nil
}

// Close lets the temporary file go; the spool cannot be used after.
func (s *Spool) Close() error {
	s.buf = nil
	if s.err == nil {
		s.err = fmt.Errorf("keep %s: closed", s.name)
	}
	if s.file == nil {
		return nil
	}
	err := s.file.Close()
	s.file = nil
	return err
}
