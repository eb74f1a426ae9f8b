package reports

import "strings"

// changeView is one changed prompt file as the page prints it: each diff
// line with the class it is drawn in.
type changeView struct {
	FileChange
	Lines []diffLine
}

type diffLine struct {
	Class, Text string
}

// changeViews classes each line of each diff; the text is printed as it
// is (the template escapes it).
func changeViews(cs []FileChange) []changeView {
	out := make([]changeView, len(cs))
	for i, c := range cs {
		v := changeView{FileChange: c}
		for j, line := range c.Diff {
			class := ""
			switch {
			case j < 2 && (strings.HasPrefix(line, "--- ") || strings.HasPrefix(line, "+++ ")):
				class = "diff-file" // the header names the files; its +/- are not edits
			case strings.HasPrefix(line, "@@"):
				class = "diff-hunk"
			case strings.HasPrefix(line, "+"):
				class = "diff-add"
			case strings.HasPrefix(line, "-"):
				class = "diff-del"
			}
			v.Lines = append(v.Lines, diffLine{Class: class, Text: line})
		}
		out[i] = v
	}
	return out
}

// changedFiles lists the changed files per head version, names only, for
// summary.md: "v2@3f9a1c2e: persona.md, skills.yaml".
func changedFiles(cs []FileChange) []string {
	var out []string
	for i := 0; i < len(cs); {
		j := i
		var names []string
		for ; j < len(cs) && cs[j].Head == cs[i].Head; j++ {
			names = append(names, cs[j].File)
		}
		out = append(out, cs[i].Head+" (against "+cs[i].Base+"): "+strings.Join(names, ", "))
		i = j
	}
	return out
}
