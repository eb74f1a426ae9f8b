package yamldoc

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		name, in string
		line     int    // 0: no error expected when want is ""
		want     string // substring of the message; "" means success
	}{
		{"one document", "a: 1\nb: [x]\n", 0, ""},
		{"leading marker", "---\na: 1\n", 0, ""},
		{"trailing bare marker", "a: 1\n---\n", 0, ""},
		{"second document", "a: 1\n---\nb: 2\n", 3, "second YAML document"},
		{"second document after comment", "a: 1\n--- # more\n# note\ncases: [1]\n", 4, "second YAML document"},
		{"empty", "", 0, ErrEmpty},
		{"only comments", "# nothing\n", 0, ErrEmpty},
		{"only a marker", "---", 0, ErrEmpty},
		{"marker and comment", "---\n# nothing yet\n", 0, ErrEmpty},
		{"syntax", "a: [1, 2\nb: 3\n", 0, "is not valid YAML"},
	} {
		t.Run(c.name, func(t *testing.T) {
			n, err := Parse([]byte(c.in))
			if c.want == "" {
				if err != nil || n == nil {
					t.Fatalf("Parse = %v, %v; want a node", n, err)
				}
				return
			}
			var ye *Error
			if !errors.As(err, &ye) || !strings.Contains(ye.Message, c.want) {
				t.Fatalf("Parse error = %v; want one containing %q", err, c.want)
			}
			if c.line != 0 && ye.Line != c.line {
				t.Errorf("line = %d, want %d", ye.Line, c.line)
			}
		})
	}
}

func TestParseSyntaxLine(t *testing.T) {
	_, err := Parse([]byte("a: 1\nb: : :\n"))
	var ye *Error
	if !errors.As(err, &ye) || ye.Line != 2 {
		t.Fatalf("Parse error = %#v; want line 2", err)
	}
}

func TestParseLineAtEndOfInput(t *testing.T) {
	for _, in := range []string{"a: 1\nb: \"open\n", "a: 1\nb: {x: 1\n\n", "a: [1, 2\n"} {
		_, err := Parse([]byte(in))
		var ye *Error
		if !errors.As(err, &ye) {
			t.Fatalf("Parse(%q) = %v; want an *Error", in, err)
		}
		last := strings.Count(strings.TrimRight(in, "\n"), "\n") + 1
		if ye.Line < 1 || ye.Line > last {
			t.Errorf("Parse(%q) line = %d; want a line of the file (1..%d)", in, ye.Line, last)
		}
	}
}
