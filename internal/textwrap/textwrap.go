// Package textwrap fits terminal output to a width: display width of text
// (East Asian wide characters take two columns) and word wrapping.
package textwrap

import (
	"strings"

	"golang.org/x/text/width"
)

// DefaultWidth is the width assumed when the output is not a terminal (CI
// logs, pipes): what a reader at a 100-column terminal sees without wraps.
const DefaultWidth = 100

// Width is the number of terminal columns s takes.
func Width(s string) int {
	n := 0
	for _, r := range s {
		switch width.LookupRune(r).Kind() {
		case width.EastAsianWide, width.EastAsianFullwidth:
			n += 2
		default:
			n++
		}
	}
	return n
}

// Wrap breaks s into lines of at most max columns at spaces; the first
// line starts with first, the others with rest (both counted in max). A
// word longer than a line is kept whole on its own line rather than cut,
// so paths and ids stay copyable. max <= 0 means no limit.
func Wrap(s string, max int, first, rest string) []string {
	words := strings.Fields(s)
	if max <= 0 || len(words) == 0 || Width(first+s) <= max {
		// Fits (or no limit): kept as written, inner spacing included.
		return []string{first + s}
	}
	var lines []string
	line, n := first, Width(first)
	empty := true
	for _, w := range words {
		ww := Width(w)
		if !empty && n+1+ww > max {
			lines = append(lines, line)
			line, n, empty = rest, Width(rest), true
		}
		if !empty {
			line += " "
			n++
		}
		line += w
		n += ww
		empty = false
	}
	return append(lines, line)
}

// Fold is Wrap for text whose words may be longer than a line (a trace
// step's JSON): such a word is cut into pieces that fit, after a comma
// where one is close enough, so nothing runs past max. max <= 0 means no
// limit.
func Fold(s string, max int, first, rest string) []string {
	if max <= 0 {
		return Wrap(s, max, first, rest)
	}
	room := max - Width(rest)
	if room < 8 || Width(first+s) <= max {
		return Wrap(s, max, first, rest)
	}
	var words []string
	for _, w := range strings.Fields(s) {
		for Width(w) > room {
			cut := cutAt(w, room)
			words = append(words, w[:cut])
			w = w[cut:]
		}
		words = append(words, w)
	}
	return Wrap(strings.Join(words, " "), max, first, rest)
}

// cutAt is the byte index to cut w at so its head takes at most room
// columns: after the last comma in the second half of that head, else at
// the last rune that fits.
func cutAt(w string, room int) int {
	n, last, comma := 0, 0, 0
	for i, r := range w {
		rw := Width(string(r))
		if n+rw > room {
			break
		}
		n += rw
		last = i + len(string(r))
		if r == ',' && n > room/2 {
			comma = last
		}
	}
	if comma > 0 {
		return comma
	}
	return last
}

// Pad right-pads s with spaces to w columns.
func Pad(s string, w int) string {
	if d := w - Width(s); d > 0 {
		return s + strings.Repeat(" ", d)
	}
	return s
}

// PadLeft left-pads s with spaces to w columns.
func PadLeft(s string, w int) string {
	if d := w - Width(s); d > 0 {
		return strings.Repeat(" ", d) + s
	}
	return s
}

// Truncate cuts s to at most max columns, ending it with "…" when cut.
func Truncate(s string, max int) string {
	if max <= 0 || Width(s) <= max {
		return s
	}
	n := 0
	for i, r := range s {
		rw := Width(string(r))
		if n+rw > max-1 {
			return s[:i] + "…"
		}
		n += rw
	}
	return s
}
