package main

import (
	"bytes"
	"path"
	"path/filepath"

	"github.com/routebench/routebench/internal/linediff"
	"github.com/routebench/routebench/reports"
	"github.com/routebench/routebench/router/registry"
)

// changeFiles are a version's files in the order a reader meets its
// layers: identity and settings, persona, constraints, contract, skills,
// then workflows.
var changeFiles = []string{"version.yaml", "persona.md", "constraints.md", "contract.schema.json", "skills.yaml", registry.WorkflowsFile}

// Caps that keep report.html small whatever the change: three context
// lines as diff -u prints, and at most diffLineCap lines a file.
const (
	diffContext = 3
	diffLineCap = 400
)

// promptChanges diffs the files of each gated version whose fingerprint
// differs from its base's, in pair order and changeFiles order, so the
// same versions give the same page.
func promptChanges(pairs []versionPair) []reports.FileChange {
	var out []reports.FileChange
	for _, p := range pairs {
		if p.base == nil || p.unchanged() {
			continue
		}
		crlf := func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")) }
		for _, name := range changeFiles {
			old, oldOK := p.base.Files[name]
			cur, curOK := p.head.Files[name]
			if !oldOK && !curOK {
				continue
			}
			if oldOK == curOK && bytes.Equal(crlf(old), crlf(cur)) {
				continue // the fingerprint reads these as the same file
			}
			c := reports.FileChange{Head: p.head.ID(), Base: p.base.ID(), File: name}
			c.Diff = linediff.Unified(shownFile(p.base.Dir, name, oldOK), shownFile(p.head.Dir, name, curOK), string(old), string(cur), diffContext)
			switch {
			case len(c.Diff) == 0 && !oldOK:
				c.Note = "added, empty"
			case len(c.Diff) == 0 && !curOK:
				c.Note = "removed; it was empty"
			case len(c.Diff) == 0:
				c.Note = "only the newline at the end of the file changed"
			case len(c.Diff) > diffLineCap:
				c.Diff, c.Omitted = c.Diff[:diffLineCap], len(c.Diff)-diffLineCap
			}
			out = append(out, c)
		}
	}
	return out
}

// shownFile names a file in a diff header as its version's Dir names the
// directory ("git:main:prompts/v2/skills.yaml"), /dev/null when absent.
func shownFile(dir, name string, present bool) string {
	if !present {
		return "/dev/null"
	}
	return path.Join(filepath.ToSlash(dir), name)
}
