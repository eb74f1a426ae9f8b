package main

import (
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/routebench/routebench/internal/textwrap"
)

// outputWidth is the width printed tables must fit: the terminal's, or
// textwrap.DefaultWidth when w is not a terminal (CI logs, pipes).
func outputWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	return textwrap.DefaultWidth
}

// isTerminal says whether w is a terminal: only then do commands draw
// (carriage returns, a redrawn bar).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// textWidth is the width to fit text to: 0 (no limit) with --wide.
func textWidth(w io.Writer, wide bool) int {
	if wide {
		return 0
	}
	return outputWidth(w)
}

// writeWrapped writes text with every line wider than width wrapped,
// continuation lines indented two more than their line, so a terminal
// never wraps one item into the next.
func writeWrapped(w io.Writer, text string, width int) {
	writeLines(w, text, width, textwrap.Wrap)
}

// writeFolded is writeWrapped for text with words longer than a line (JSON
// on one line): those are cut, so no line passes width.
func writeFolded(w io.Writer, text string, width int) {
	writeLines(w, text, width, textwrap.Fold)
}

// writeLines breaks each line of text with brk, keeping its indent.
func writeLines(w io.Writer, text string, width int, brk func(s string, width int, first, rest string) []string) {
	for _, line := range strings.SplitAfter(text, "\n") {
		body := strings.TrimSuffix(line, "\n")
		if body == "" {
			io.WriteString(w, line)
			continue
		}
		lead := body[:len(body)-len(strings.TrimLeft(body, " "))]
		for _, l := range brk(strings.TrimLeft(body, " "), width, lead, lead+"  ") {
			io.WriteString(w, l+"\n")
		}
	}
}
