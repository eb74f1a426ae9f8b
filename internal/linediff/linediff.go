// Package linediff computes the line diff of two texts and prints it in
// unified format, so a reviewer sees how a prompt file changed between two
// versions. Line endings are compared the way a version's fingerprint
// reads them: CRLF and LF are the same line.
package linediff

import (
	"strconv"
	"strings"
)

// Op says what an edit does to a line.
type Op byte

const (
	Equal  Op = ' '
	Delete Op = '-'
	Insert Op = '+'
)

// Edit is one line of the diff: kept, deleted from the old text or
// inserted from the new one.
type Edit struct {
	Op   Op
	Text string
}

// maxCells bounds the longest-common-subsequence table (4 bytes a cell).
// Past it, the differing middle is shown deleted and inserted whole: still
// a correct diff, just not the shortest, and the memory stays bounded.
const maxCells = 4 << 20

// Edits turns old into new line by line with as few deleted and inserted
// lines as it can (the longest common subsequence). Where several diffs
// are equally short, deletions come before insertions, so the result is
// the same for the same inputs.
func Edits(old, new string) []Edit {
	a, b := split(old), split(new)
	// The common head and tail cost nothing to match, and trimming them
	// keeps the table small for the usual one-line change.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	edits := make([]Edit, 0, len(a)+len(b)-pre-suf)
	for _, l := range a[:pre] {
		edits = append(edits, Edit{Equal, l})
	}
	edits = append(edits, middle(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		edits = append(edits, Edit{Equal, l})
	}
	return edits
}

// middle diffs the part between the common head and tail.
func middle(a, b []string) []Edit {
	var out []Edit
	n, m := len(a), len(b)
	if n == 0 || m == 0 || (n+1)*(m+1) > maxCells {
		for _, l := range a {
			out = append(out, Edit{Delete, l})
		}
		for _, l := range b {
			out = append(out, Edit{Insert, l})
		}
		return out
	}
	// lcs[i*(m+1)+j] is the length of the longest common subsequence of
	// a[i:] and b[j:].
	w := m + 1
	lcs := make([]int32, (n+1)*w)
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case a[i] == b[j]:
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
				lcs[i*w+j] = lcs[(i+1)*w+j]
			default:
				lcs[i*w+j] = lcs[i*w+j+1]
			}
		}
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			out = append(out, Edit{Equal, a[i]})
			i, j = i+1, j+1
		case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
			out = append(out, Edit{Delete, a[i]})
			i++
		default:
			out = append(out, Edit{Insert, b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		out = append(out, Edit{Delete, a[i]})
	}
	for ; j < m; j++ {
		out = append(out, Edit{Insert, b[j]})
	}
	return out
}

// split cuts text into lines without their endings; a final newline ends
// the last line rather than starting an empty one.
func split(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// Unified prints the diff of old and new as unified-diff lines: a
// "--- oldName" and "+++ newName" header, then hunks opening with
// "@@ -l,n +l,n @@" and holding context unchanged lines around each
// change. It returns nil when the texts have the same lines.
func Unified(oldName, newName, old, new string, context int) []string {
	edits := Edits(old, new)
	// aPos[k] and bPos[k] count the old and new lines before edit k.
	aPos, bPos := make([]int, len(edits)+1), make([]int, len(edits)+1)
	var changes []int
	for k, e := range edits {
		aPos[k+1], bPos[k+1] = aPos[k], bPos[k]
		if e.Op != Insert {
			aPos[k+1]++
		}
		if e.Op != Delete {
			bPos[k+1]++
		}
		if e.Op != Equal {
			changes = append(changes, k)
		}
	}
	if len(changes) == 0 {
		return nil
	}
	out := []string{"--- " + oldName, "+++ " + newName}
	for c := 0; c < len(changes); {
		// A hunk takes in every following change whose gap of unchanged
		// lines is short enough that their contexts would touch.
		last := c
		for last+1 < len(changes) && changes[last+1]-changes[last]-1 <= 2*context {
			last++
		}
		from := max(changes[c]-context, 0)
		to := min(changes[last]+1+context, len(edits))
		out = append(out, "@@ -"+span(aPos[from], aPos[to]-aPos[from])+" +"+span(bPos[from], bPos[to]-bPos[from])+" @@")
		for _, e := range edits[from:to] {
			out = append(out, string(e.Op)+e.Text)
		}
		c = last + 1
	}
	return out
}

// span is a hunk's range as diff and patch read it: the first line
// (1-based) and the count, the count left out when it is 1, and the line
// before the hunk when it is empty.
func span(before, count int) string {
	switch count {
	case 0:
		return strconv.Itoa(before) + ",0"
	case 1:
		return strconv.Itoa(before + 1)
	}
	return strconv.Itoa(before+1) + "," + strconv.Itoa(count)
}
