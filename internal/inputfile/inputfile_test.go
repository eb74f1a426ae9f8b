package inputfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadFileBounds(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.yaml")
	if err := os.WriteFile(small, []byte("a: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(small, 0); err != nil || string(data) != "a: 1\n" {
		t.Fatalf("ReadFile(small) = %q, %v", data, err)
	}
	if _, err := ReadFile(small, 3); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFile over limit: err = %v, want ErrTooLarge", err)
	}
	if _, err := ReadFile(dir, 0); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "directory") {
		t.Errorf("ReadFile(dir): err = %v, want ErrNotRegular naming a directory", err)
	}
	link := filepath.Join(dir, "zero.yaml")
	if err := os.Symlink("/dev/zero", link); err == nil {
		if _, err := ReadFile(link, 0); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "character device") {
			t.Errorf("ReadFile(link to /dev/zero): err = %v, want ErrNotRegular naming a character device", err)
		}
	}
	fifo := filepath.Join(dir, "pipe.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err == nil {
		// Would block forever if Read opened before checking the mode.
		if _, err := ReadFile(fifo, 0); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("ReadFile(fifo): err = %v, want ErrNotRegular naming a named pipe", err)
		}
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), 0); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadFile(missing): err = %v, want ErrNotExist", err)
	}
}

func TestCheckText(t *testing.T) {
	for _, c := range []struct {
		in        string
		line, col int
		what      string
	}{
		{"a: 1\n\tb: 2\r\n名字: 值\n", 0, 0, ""},
		{"\ufeffa: 1\n", 0, 0, ""},
		{"a: 1\nb: \xff\n", 2, 4, "invalid UTF-8"},
		{"a: 1\nb: 2\nc: x\x00y\n", 3, 5, "NUL"},
		{"名字: \x1b[31m\n", 1, 5, "U+001B"},
		{"a: \u0085\n", 1, 4, "U+0085"},
	} {
		err := CheckText([]byte(c.in))
		if c.what == "" {
			if err != nil {
				t.Errorf("CheckText(%q) = %v, want nil", c.in, err)
			}
			continue
		}
		var te *TextError
		if !errors.As(err, &te) || te.Line != c.line || te.Column != c.col || !strings.Contains(te.What, c.what) {
			t.Errorf("CheckText(%q) = %#v, want line %d col %d %q", c.in, err, c.line, c.col, c.what)
		}
	}
}

// A file is read into a buffer of the size stat gave; one that grew since
// is still read whole, and a read error is returned.
func TestReadAllGrowsPastTheStatSize(t *testing.T) {
	text := strings.Repeat("cases:\n  - id: x\n", 1000)
	for _, size := range []int{0, 1, 17, len(text), len(text) + 1} {
		got, err := readAll(strings.NewReader(text), make([]byte, 0, size))
		if err != nil || string(got) != text {
			t.Fatalf("readAll with a buffer of %d: %d bytes, %v; want the %d bytes", size, len(got), err, len(text))
		}
	}
	failing := errors.New("disk gone")
	if _, err := readAll(&failingReader{left: 100, err: failing}, make([]byte, 0, 10)); !errors.Is(err, failing) {
		t.Fatalf("readAll of a failing reader: err = %v, want %v", err, failing)
	}
}

type failingReader struct {
	left int
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		return 0, r.err
	}
	n := min(len(p), r.left)
	r.left -= n
	return n, nil
}

// plainText, CheckText's fast path, accepts exactly the text the full
// check (locateDamage) finds nothing wrong in: every byte value at every
// place in a word, and multi-byte characters cut at any point.
func TestPlainTextAgreesWithTheFullCheck(t *testing.T) {
	bases := []string{"plain ascii text over two words", "订单 华东区 orders\tand\r\nlines", "\u00a0nbsp and \u2028 line sep"}
	for _, base := range bases {
		for at := 0; at <= len(base); at++ {
			for c := 0; c < 256; c++ {
				data := []byte(base[:at] + string([]byte{byte(c)}) + base[at:])
				if got, want := plainText(data), locateDamage(data) == nil; got != want {
					t.Fatalf("plainText(%q) = %v, full check clean = %v", data, got, want)
				}
			}
			data := []byte(base[:at])
			if got, want := plainText(data), locateDamage(data) == nil; got != want {
				t.Fatalf("plainText(%q) = %v, full check clean = %v", data, got, want)
			}
		}
	}
}

// FuzzPlainText holds plainText to the full check on arbitrary bytes.
//
//	go test ./internal/inputfile/ -run '^$' -fuzz '^FuzzPlainText$' -fuzztime 60s
func FuzzPlainText(f *testing.F) {
	for _, s := range []string{"a: b\n", "订单\x7f", "\xc2\x85 c1", "tab\there\r\n", "\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := plainText(data), locateDamage(data) == nil; got != want {
			t.Fatalf("plainText(%q) = %v, full check clean = %v", data, got, want)
		}
	})
}
