// Package inputfile reads the files routebench is pointed at with bounds:
// only regular files (a path linked to /dev/zero or a FIFO would otherwise
// block or grow without end), at most a size limit, and text checked for
// encoding damage with the line and column where it starts.
package inputfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"unicode/utf8"
)

// DefaultLimit bounds the YAML, JSON and Markdown inputs of a run. It is far
// above any real registry or suite file (the 10,000-case generated suite is
// under 4 MB) and far below what would exhaust memory.
const DefaultLimit = 64 << 20

// ErrTooLarge is wrapped by the error Read returns for a file over its limit.
var ErrTooLarge = errors.New("file too large")

// ErrNotRegular is wrapped by the error Read returns for a device, FIFO,
// socket or directory.
var ErrNotRegular = errors.New("not a regular file")

// ReadFile reads a file of the OS file system; see Read.
func ReadFile(path string, limit int64) ([]byte, error) {
	return read(func() (fs.File, error) { return os.Open(path) }, func() (fs.FileInfo, error) { return os.Stat(path) }, path, limit)
}

// Read reads name from fsys when it is a regular file of at most limit
// bytes (limit <= 0 means DefaultLimit). Symbolic links are followed, so a
// link is judged by what it points to.
func Read(fsys fs.FS, name string, limit int64) ([]byte, error) {
	return read(func() (fs.File, error) { return fsys.Open(name) }, func() (fs.FileInfo, error) { return fs.Stat(fsys, name) }, name, limit)
}

func read(open func() (fs.File, error), stat func() (fs.FileInfo, error), name string, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	// Stat before open: opening a FIFO for reading blocks until a writer comes.
	info, err := stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%w (%s); give a regular file", ErrNotRegular, DescribeMode(info.Mode()))
	}
	if info.Size() > limit {
		return nil, fmt.Errorf("%w: %d bytes, over the limit of %d bytes", ErrTooLarge, info.Size(), limit)
	}
	f, err := open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The size from stat can be stale (a file still being written), so the
	// read itself is bounded too.
	data, err := readAll(io.LimitReader(f, limit+1), make([]byte, 0, min(info.Size(), limit)+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: over the limit of %d bytes", ErrTooLarge, limit)
	}
	return data, nil
}

// readAll is io.ReadAll into buf, sized by the caller from the file's
// size: a large suite is read into one buffer of its size, where
// io.ReadAll grows one from 512 bytes (more than twice the file's size
// allocated and copied).
func readAll(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // the file grew since stat
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF { // as io.ReadAll
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// DescribeMode names what a path that is not a regular file is, for
// messages: "a directory", "a named pipe", "a character device".
func DescribeMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	default:
		return "mode " + m.String()
	}
}

// TextError locates the first encoding damage in a text file.
type TextError struct {
	Line, Column int    // 1-based; the column counts runes
	What         string // "invalid UTF-8", "a NUL byte", "control character U+001B"
}

func (e *TextError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s; save the file as UTF-8 text without control characters", e.Line, e.Column, e.What)
}

// CheckText returns a *TextError for the first invalid UTF-8 sequence, NUL
// byte or control character other than tab, newline and carriage return, or
// nil when the text is clean. A UTF-8 byte order mark at the start is allowed.
func CheckText(data []byte) error {
	// Clean text, nearly always, is told at a few bytes an instruction;
	// lines and columns are counted only to place damage.
	if plainText(data) {
		return nil
	}
	return locateDamage(data)
}

// plainText says data holds nothing CheckText refuses: printable ASCII,
// tab, newline and carriage return, stepped over 8 bytes at a time, and
// valid UTF-8 characters from U+00A0 on.
func plainText(data []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for i := 0; i < len(data); {
		if i+8 <= len(data) {
			x := binary.LittleEndian.Uint64(data[i:])
			// A byte's high bit is set in special where x holds a byte of
			// 0x80 or above, below 0x20, or 0x7F (borrows may mark bytes
			// beyond the first such byte: those are then read one by one).
			del := x ^ 0x7F*ones
			special := x | (x-0x20*ones)&^x | (del-ones)&^del
			if special&highs == 0 {
				i += 8
				continue
			}
		}
		c := data[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != 0x7F || c == '\t' || c == '\n' || c == '\r' {
				i++
				continue
			}
			return false
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 || r < 0xA0 {
			return false
		}
		i += size
	}
	return true
}

// locateDamage is CheckText's error for text that is not plainText,
// with its line and column.
func locateDamage(data []byte) error {
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return &TextError{Line: line, Column: col, What: fmt.Sprintf("invalid UTF-8 (byte 0x%02X)", data[i])}
		case r == 0:
			return &TextError{Line: line, Column: col, What: "a NUL byte"}
		case r == '\n':
			line, col = line+1, 0
		case r == '\t' || r == '\r':
		case r < 0x20 || r == 0x7F || (r >= 0x80 && r < 0xA0):
			return &TextError{Line: line, Column: col, What: fmt.Sprintf("control character U+%04X", r)}
		}
		i += size
		col++
	}
	return nil
}
