package registry

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/routebench/routebench/internal/inputfile"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// VersionFiles are the files of a prompt version directory, in fingerprint order.
var VersionFiles = []string{"constraints.md", "contract.schema.json", "persona.md", "skills.yaml", versionFileName}

// WorkflowsFile is a version's optional workflows file (DESIGN §11).
const WorkflowsFile = "workflows.yaml"

// Load reads and validates the prompt version in directory dir. The error,
// when not nil, is a *LoadError naming every problem with file and line.
func Load(dir string) (*Version, error) {
	return LoadFS(os.DirFS(dir), ".", dir)
}

// LoadFS reads a prompt version from root inside fsys; display is what
// problems and Version.Dir show as its directory (for example
// "git:origin/main:fixtures/ops/prompts/v2"). The version's name is the
// name version.yaml gives, else the base name of root, or of display when
// root is ".".
func LoadFS(fsys fs.FS, root, display string) (*Version, error) {
	v := &Version{Name: versionName(root, display), Dir: display}
	ps := &problems{}
	shown := func(name string) string { return filepath.Join(display, name) }

	if info, err := fs.Stat(fsys, root); err != nil || !info.IsDir() {
		what := "does not exist"
		if err == nil {
			what = "is not a directory"
		}
		ps.add(Pos{File: display}, "", "%s; give the directory of a prompt version (holding %s)", what, strings.Join(VersionFiles, ", "))
		return nil, ps.err()
	}
	files := map[string][]byte{}
	for _, name := range VersionFiles {
		// Bounded, regular files only: a skills.yaml linked to /dev/zero or
		// a FIFO would otherwise hang the loader or exhaust memory.
		data, err := inputfile.Read(fsys, path.Join(root, name), 0)
		switch {
		case err == nil:
			files[name] = data
		case errors.Is(err, fs.ErrNotExist):
			ps.add(Pos{File: shown(name)}, "", "is missing; a prompt version directory holds %s", strings.Join(VersionFiles, ", "))
		case errors.Is(err, inputfile.ErrNotRegular):
			ps.add(Pos{File: shown(name)}, "", "cannot be read: %v", err)
		case errors.Is(err, inputfile.ErrTooLarge):
			ps.add(Pos{File: shown(name)}, "", "cannot be read: %v; a prompt version file is text far below that, so check it is the right file", err)
		default:
			ps.add(Pos{File: shown(name)}, "", "cannot be read: %v; check its permissions", err)
		}
	}
	// workflows.yaml is optional (DESIGN §11): in the fingerprint only when
	// present, kept raw for package workflow, which checks it against the
	// registry (registry cannot import it).
	if data, err := fs.ReadFile(fsys, path.Join(root, WorkflowsFile)); err == nil {
		files[WorkflowsFile] = data
		v.WorkflowsRaw = data
	} else if !errors.Is(err, fs.ErrNotExist) {
		ps.add(Pos{File: shown(WorkflowsFile)}, "", "cannot be read: %v; check its permissions", err)
	}
	v.Fingerprint = Fingerprint(files)
	v.Files = maps.Clone(files)
	// Damaged text is reported with its line and column before any parser
	// sees it; a damaged file is not parsed further.
	for _, name := range VersionFiles {
		if data, ok := files[name]; ok && !checkText(shown(name), data, ps) {
			delete(files, name)
		}
	}

	v.Router = DefaultRouter()
	if data, ok := files[versionFileName]; ok {
		f := &yfile{name: shown(versionFileName), ps: ps}
		if root := f.parse(data); root != nil {
			var name string
			name, v.Description, v.Router = f.versionDoc(root)
			if name != "" {
				v.Name = name
			}
		}
	}
	v.Persona = string(files["persona.md"])
	v.Constraints = string(files["constraints.md"])
	if data, ok := files["contract.schema.json"]; ok {
		v.ContractRaw = data
		v.Contract = compileContract(shown("contract.schema.json"), data, ps)
	}
	if data, ok := files["skills.yaml"]; ok {
		skills, err := ParseSkills(shown("skills.yaml"), data)
		ps.merge(err, shown("skills.yaml"))
		if err == nil {
			reg, err := New(skills)
			ps.merge(err, shown("skills.yaml"))
			v.Registry = reg
		}
	}
	if err := ps.err(); err != nil {
		return nil, err
	}
	return v, nil
}

func versionName(root, display string) string {
	if root != "." && root != "" {
		return path.Base(root)
	}
	d := display
	if strings.HasPrefix(d, "git:") {
		d = d[strings.LastIndex(d, ":")+1:]
	}
	d = filepath.Clean(filepath.FromSlash(d))
	if d == "." || d == ".." || strings.HasSuffix(d, string(filepath.Separator)+"..") {
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
	}
	return filepath.Base(d)
}

// Fingerprint is the hex sha256 over the given files, taken in name order,
// each as name, NUL, content, NUL. Line endings are normalized to \n first so
// a checkout with CRLF (git autocrlf) has the same identity everywhere.
func Fingerprint(files map[string][]byte) string {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, name := range names {
		h.Write([]byte(name))
		h.Write([]byte{0})
		h.Write(bytes.ReplaceAll(files[name], []byte("\r\n"), []byte("\n")))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// sampleAnswer is a well-formed judge answer; a contract that rejects it
// would turn every judge call into a schema error.
var sampleAnswer = map[string]any{"skill": "none", "confidence": 0.5, "params": map[string]any{}}

// compileContract parses and compiles contract.schema.json. Lines for
// compile errors come from reading the JSON as YAML, which it also is.
func compileContract(file string, data []byte, ps *problems) *jsonschema.Schema {
	if len(bytes.TrimSpace(data)) == 0 {
		ps.add(Pos{File: file, Line: 1}, "", "is empty; write the JSON Schema the judge's answer must match")
		return nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		line := 0
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			line = 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			line = 1 + bytes.Count(bytes.TrimRight(data, " \t\r\n"), []byte("\n")) // where the text stops
		default:
			// The schema library's own errors (text after the top-level
			// value, say) carry no offset; encoding/json finds the same
			// fault and says where.
			var v any
			if errors.As(json.Unmarshal(data, &v), &se) {
				line = 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
			}
		}
		ps.add(Pos{File: file, Line: line}, "", "is not valid JSON: %v; fix the syntax", err)
		return nil
	}
	var node yaml.Node
	_ = yaml.Unmarshal(data, &node)
	lineOf := func(ptr []string) int {
		if len(node.Content) == 0 {
			return 0
		}
		return nodeAt(node.Content[0], ptr).Line
	}
	c := newSchemaCompiler()
	if err := c.AddResource(schemaURL, doc); err != nil {
		ps.add(Pos{File: file}, "", "cannot be used as a schema: %v; write a JSON Schema object", err)
		return nil
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		for _, p := range explainSchemaError(err) {
			ps.add(Pos{File: file, Line: lineOf(p.ptr)}, strings.Join(p.ptr, "."), "does not compile: %s; fix it to valid JSON Schema 2020-12", p.msg)
		}
		return nil
	}
	if cyc := refCycle(sch); cyc != nil {
		// The sample answer below only meets cycles on its own path; one
		// under "reason" would fail every judge answer that gives a reason.
		ptr, chain := cycleProblem(cyc)
		line := 1
		if len(node.Content) > 0 {
			line = refNode(node.Content[0], ptr).Line
		}
		ps.add(Pos{File: file, Line: line}, strings.Join(ptr, "."), "is a $ref cycle (%s): validating any judge answer that reaches it fails; "+
			"break the chain so one schema checks the value itself", chain)
		return nil
	}
	// A judge answer is validated against the contract on every call.
	if p := validationCost(c, doc, sch); p != nil {
		line := 1
		if len(node.Content) > 0 {
			line = refNode(node.Content[0], p.ptr).Line
		}
		ps.add(Pos{File: file, Line: line}, strings.Join(p.ptr, "."), "%s", p.msg)
		return nil
	}
	if err := sch.Validate(sampleAnswer); err != nil {
		msgs := []string{}
		for _, p := range explainSchemaError(err) {
			msgs = append(msgs, fmt.Sprintf("at /%s: %s", strings.Join(p.ptr, "/"), p.msg))
		}
		ps.add(Pos{File: file, Line: 1}, "", "rejects a well-formed judge answer %s (%s); the judge contract is {skill, confidence, params} plus optional reason",
			`{"skill": "none", "confidence": 0.5, "params": {}}`, strings.Join(msgs, "; "))
		return nil
	}
	return sch
}
