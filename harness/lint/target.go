package lint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/inputfile"
	"github.com/routebench/routebench/router/registry"
)

// Target is one prompt version to lint.
type Target struct {
	// Spec is the version as given (a directory or git:REV:DIR).
	Spec string
	// Version is nil when the version did not load; Err says why.
	Version *registry.Version
	Err     error
	// RawSkills is skills.yaml as written. The loader fills defaults (a side
	// effect without confirm gets the normal gate), so whether a field was
	// written at all is read from here. Nil when the file could not be read.
	RawSkills []byte
}

// LoadTarget loads the prompt version at root inside fsys; display is what
// findings show as its directory (see registry.LoadFS).
func LoadTarget(fsys fs.FS, root, display string) Target {
	t := Target{Spec: display}
	t.Version, t.Err = registry.LoadFS(fsys, root, display)
	// Read as the loader reads it (regular files, bounded): a skills.yaml
	// linked to /dev/zero is a load finding, not a read without end.
	if data, err := inputfile.Read(fsys, path.Join(root, "skills.yaml"), 0); err == nil {
		t.RawSkills = data
	}
	return t
}

// LoadDir loads the prompt version in directory dir.
func LoadDir(dir string) Target { return LoadTarget(os.DirFS(dir), ".", dir) }

// loadFindings turns a version's load problems into error findings: a
// registry that does not load never runs, so every problem fails lint.
func loadFindings(t Target) []Finding {
	var le *registry.LoadError
	if !errors.As(t.Err, &le) {
		msg := "does not load"
		if t.Err != nil {
			msg = fmt.Sprintf("does not load: %v", t.Err)
		}
		return []Finding{{Severity: Error, Version: t.Spec, File: t.Spec, Check: CheckLoad, Message: msg + "; fix the version's files"}}
	}
	out := make([]Finding, 0, len(le.Problems))
	for _, p := range le.Problems {
		out = append(out, problemFinding(t.Spec, CheckLoad, p))
	}
	return out
}

func problemFinding(version, check string, p registry.Problem) Finding {
	msg := p.Message
	if p.Field != "" {
		msg = p.Field + ": " + msg
	}
	return Finding{Severity: Error, Version: version, File: p.Pos.File, Line: p.Pos.Line, Check: check, Message: msg}
}

// LoadSuites loads the suite files against the registries of the targets
// that loaded. It returns nil cases and error findings when they do not
// load, so the suite checks are skipped and the problems reported instead.
// When some target did not load, skill names in the suites are not checked
// here (the broken registry may be the one that defines them); lint's
// suite_skill check still names cases whose skills a version lacks.
func LoadSuites(paths []string, targets []Target) ([]harness.Case, []Finding) {
	var regs []*registry.Registry
	for _, t := range targets {
		var routing *registry.Registry
		if t.Version != nil {
			if vw, err := harness.PrepareWorkflows(t.Version); err == nil {
				routing = vw.Routing // cases may name workflows like skills
			}
		}
		if routing == nil {
			regs = nil
			break
		}
		regs = append(regs, routing)
	}
	cases, err := harness.LoadSuites(paths, regs...)
	if err == nil {
		if cases == nil {
			cases = []harness.Case{}
		}
		return cases, nil
	}
	var le *registry.LoadError
	if !errors.As(err, &le) {
		return nil, []Finding{{Severity: Error, Check: CheckSuiteLoad, Message: fmt.Sprintf("suites do not load: %v", err)}}
	}
	out := make([]Finding, 0, len(le.Problems))
	for _, p := range le.Problems {
		out = append(out, problemFinding("", CheckSuiteLoad, p))
	}
	return nil, out
}
