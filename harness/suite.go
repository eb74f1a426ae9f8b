package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/routebench/routebench/internal/inputfile"
	"github.com/routebench/routebench/internal/yamldoc"
	"github.com/routebench/routebench/internal/yamlkind"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// LoadSuites reads suite files (DESIGN §5), each whole (a second YAML
// document is an error, not dropped) and as a regular file of at most
// inputfile.DefaultLimit bytes. A path that is a folder is walked as
// suiteFiles describes; cases keep file order. Skills named in expectations
// (skill, candidates, never) and in caller.disabled must exist in at least
// one of the registries, or in the case's own tools; with no registries
// given, names are not checked. The error, when not nil, is a
// *registry.LoadError listing every problem with file and line.
func LoadSuites(paths []string, regs ...*registry.Registry) ([]Case, error) {
	files, err := suiteFiles(paths)
	if err != nil {
		return nil, err
	}
	return loadSuiteFiles(files, newSkillIndex(regs))
}

// loadSuiteFiles is LoadSuites after the files are listed.
func loadSuiteFiles(files []string, known skillIndex) ([]Case, error) {
	l := &suiteLoader{known: known, ids: map[string]registry.Pos{}}
	// One array of the right size from the start: grown by appending, the
	// cases were copied again and again, old and new array alive at once
	// (the peak of loading a large suite set).
	l.cases = make([]Case, 0, countCases(files))
	if err := l.load(files, 1); err != nil {
		return nil, err
	}
	cases := l.cases
	if len(cases) == 0 {
		cases = nil
	}
	return cases, nil
}

// load loads the files in order (those in l.whole from their whole tree),
// reading ahead files (0 or 1) before they are used; the error lists
// every problem, sorted.
func (l *suiteLoader) load(files []string, ahead int) error {
	parseFilesWith(files, l.whole, ahead, func(doc parsedFile) {
		if l.stop {
			return
		}
		if doc.problem != nil {
			l.problems = append(l.problems, *doc.problem)
			return
		}
		l.parsed(doc)
	})
	if len(l.problems) > 0 {
		sortProblems(l.problems)
		return &registry.LoadError{Problems: l.problems}
	}
	return nil
}

// ParseSuite parses one suite file's bytes; file is the name problems show.
// Skills are checked as in LoadSuites.
func ParseSuite(file string, data []byte, regs ...*registry.Registry) ([]Case, error) {
	l := &suiteLoader{known: newSkillIndex(regs), ids: map[string]registry.Pos{}}
	doc := parseData(file, data)
	if doc.problem != nil {
		return nil, &registry.LoadError{Problems: []registry.Problem{*doc.problem}}
	}
	cases := l.parsed(doc)
	if len(l.problems) > 0 {
		sortProblems(l.problems)
		return nil, &registry.LoadError{Problems: l.problems}
	}
	return cases, nil
}

const suiteEmpty = "write a suite (suite, defaults, cases; DESIGN §5)"

// notSuiteRule is said of every file in a suites folder that is neither a
// suite nor a note, so the author sees the rule where it bites.
const notSuiteRule = "is not a suite file; a suites folder holds suites (.yaml, .yml) and notes (.md, .txt) only: rename it to .yaml, move it out, or hide it with a leading dot"

// suiteFiles lists the files to load, each once. A file named explicitly is
// read whatever its name: the author chose it. A folder is walked
// recursively in path order, and every entry in it is accounted for, so no
// case is skipped silently:
//   - *.yaml and *.yml, in any letter case, are suites;
//   - hidden entries (".drafts/", ".wip.yaml") are skipped with all they
//     hold: a leading dot is the usual way to park a file;
//   - notes (*.md, *.txt, in any case) are ignored: they are never suites
//     under a wrong name;
//   - anything else (cases.json, normal.yaml.bak, a link to a folder) is an
//     error naming it, since it may well be a suite under a wrong name.
func suiteFiles(paths []string) ([]string, error) {
	var files []string
	var ps []registry.Problem
	seen := map[string]bool{}
	take := func(file string) {
		if clean := filepath.Clean(file); !seen[clean] {
			seen[clean] = true
			files = append(files, file)
		}
	}
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			ps = append(ps, registry.Problem{Pos: registry.Pos{File: p}, Message: "no such suite file or directory; check the suites list"})
			continue
		}
		if !info.IsDir() {
			take(p) // inputfile refuses FIFOs and devices when it is read
			continue
		}
		found := 0
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				ps = append(ps, readProblem(path, err))
				return nil // WalkDir skips what it could not list
			}
			name := d.Name()
			if path != p && strings.HasPrefix(name, ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				return nil
			}
			switch strings.ToLower(filepath.Ext(name)) {
			case ".yaml", ".yml":
				found++
				take(path)
			case ".md", ".txt":
			default:
				msg := notSuiteRule
				if st, err := os.Stat(path); err == nil && st.IsDir() {
					msg = "is a link to a folder, which is not followed; name its target in the suites list"
				}
				ps = append(ps, registry.Problem{Pos: registry.Pos{File: path}, Message: msg})
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("list suites in %s: %w", p, err)
		}
		if found == 0 {
			ps = append(ps, registry.Problem{Pos: registry.Pos{File: p}, Message: "holds no suite files (.yaml or .yml, searched recursively); add one or fix the suites list"})
		}
	}
	if len(ps) > 0 {
		sortProblems(ps)
		return nil, &registry.LoadError{Problems: ps}
	}
	return files, nil
}

func sortProblems(ps []registry.Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Pos.File != ps[j].Pos.File {
			return ps[i].Pos.File < ps[j].Pos.File
		}
		return ps[i].Pos.Line < ps[j].Pos.Line
	})
}

// suiteLoader collects every problem over all files, so one run shows the
// author everything to fix.
type suiteLoader struct {
	problems []registry.Problem
	known    skillIndex
	ids      map[string]registry.Pos // case id -> where first seen
	// journal, when not nil, collects the ids added to ids, so a file
	// loaded item by item can be taken back and loaded whole.
	journal []string
	// intern lets the loaded cases share what they repeat.
	intern *interner
	// cases are every file's loaded cases, in file order.
	cases []Case
	// emit, when set, is given each loaded case instead of cases, which
	// stays empty (a streamed load: see SuiteSet); emitted counts them.
	// retract takes back the cases emitted after the first n, when a file
	// loaded item by item is loaded again whole; without it (the cases
	// are already routed) that is a problem.
	emit    func(c *Case)
	emitted int
	retract func(n int)
	// whole names the files loaded whole after their items did not all
	// parse alone; a load given it parses those whole from the start.
	whole map[string]bool
	// noIntern skips sharing: a streamed case is dropped once routed.
	noIntern bool
	// stop, set by emit, ends the load early.
	stop bool
	// hashBuf is caseHash's buffer, kept from case to case.
	hashBuf []byte
}

// interner is the load's interner, made when first asked for.
func (l *suiteLoader) interner() *interner {
	if l.intern == nil {
		l.intern = newInterner()
	}
	return l.intern
}

// keep takes one loaded case.
func (l *suiteLoader) keep(c Case) {
	if l.emit != nil {
		l.emitted++
		l.emit(&c)
		return
	}
	l.cases = append(l.cases, c)
}

func (l *suiteLoader) add(pos registry.Pos, field, format string, args ...any) {
	l.problems = append(l.problems, oneLine(registry.Problem{Pos: pos, Field: field, Message: fmt.Sprintf(format, args...)}))
}

// suiteDefaults are the `defaults:` block, applied to every case.
type suiteDefaults struct {
	caller    router.Caller
	hasCaller bool
	now       string
	tags      []string
}

var (
	suiteKinds    = []string{SuiteNormal, SuiteBoundary, SuiteAdversarial}
	suiteFields   = []string{"suite", "defaults", "cases"}
	defaultFields = []string{"caller", "now", "tags"}
	caseFields    = []string{"id", "input", "turns", "tags", "caller", "now", "expect", "tools", "tools_sim", "model_script", "confirm", "resume"}
	callerFields  = []string{"scopes", "disabled"}
)

// parsedFile is one suite file's YAML tree, or why there is none. When
// split is set, root is the tree of split.frame (the file without its case
// items), and the items are parsed a few at a time from data.
type parsedFile struct {
	file    string
	root    *yaml.Node
	problem *registry.Problem
	data    []byte
	split   *suiteSplit
	// aliases is a split file's count of what its aliases stand for, the
	// frame's so far: its items add theirs as they are parsed.
	aliases *yamldoc.Aliases
}

// parseFilesWith reads and parses the files, handing each tree to use in
// file order, so everything after stays deterministic. One tree at a time:
// a parsed tree is many times its file's size (a 10 MB suite is well over
// 100 MB of nodes), so holding every file's tree at once, or parsing the
// next while one is used, made loading the peak of a large run's memory.
// The files in whole are parsed from their whole tree, and ahead files (0
// or 1) are read and parsed before they are used. A streamed load reads none ahead: its use of a file takes as long
// as routing the file's cases, and the next file's bytes would wait in
// memory all that time.
func parseFilesWith(files []string, whole map[string]bool, ahead int, use func(parsedFile)) {
	if ahead < 1 {
		for _, file := range files {
			use(parseFile(file, whole[file]))
		}
		return
	}
	parsed := make([]chan parsedFile, len(files))
	for i := range parsed {
		parsed[i] = make(chan parsedFile, 1)
	}
	slots := make(chan struct{}, ahead)
	go func() {
		for i, file := range files {
			slots <- struct{}{}
			go func() { parsed[i] <- parseFile(file, whole[file]) }()
		}
	}()
	for i := range files {
		use(<-parsed[i])
		<-slots
	}
}

// parseFile reads and parses one suite file, item by item when it can
// unless whole says to parse its whole tree.
func parseFile(file string, whole bool) parsedFile {
	out := parsedFile{file: file}
	data, err := inputfile.ReadFile(file, inputfile.DefaultLimit)
	if err != nil {
		p := readProblem(file, err)
		out.problem = &p
		return out
	}
	if whole {
		out.root, out.problem = parseYAML(file, data, suiteEmpty)
		return out
	}
	return parseData(file, data)
}

// parseData parses a suite file's bytes: item by item when splitSuite knows
// its layout and the frame parses as a mapping whose `cases` is the key it
// split at, with the empty value the blanked items leave (not one that
// what follows them made: a `>` on the next line would start a text),
// else whole.
func parseData(file string, data []byte) parsedFile {
	out := parsedFile{file: file, data: data}
	if inputfile.CheckText(data) == nil {
		if sp, ok := splitSuite(data); ok {
			aliases := &yamldoc.Aliases{}
			root, problem := parseYAMLCounting(file, sp.frame, suiteEmpty, aliases)
			if problem == nil && root.Kind == yaml.MappingNode {
				if k := keyOf(root, "cases"); k != root && k.Line == sp.casesLine && isEmptyValue(keyNode(root, "cases")) {
					sp.frame = nil
					out.root, out.split, out.aliases = root, &sp, aliases
					return out
				}
			}
		}
	}
	out.root, out.problem = parseYAML(file, data, suiteEmpty)
	return out
}

// isEmptyValue is whether n is what a key with nothing after it holds.
func isEmptyValue(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Style == 0 && n.ShortTag() == "!!null" && n.Value == ""
}

// parsed loads one parsed file's cases. A split file whose items do not
// all parse on their own is loaded again from its whole tree, with what
// its items had added to the loader taken back first.
func (l *suiteLoader) parsed(doc parsedFile) []Case {
	if doc.split == nil {
		return l.file(doc.file, doc.root, nil)
	}
	problems, before, emitted := len(l.problems), len(l.cases), l.emitted
	l.journal = []string{}
	items := &splitItems{data: doc.data, items: doc.split.items, aliases: doc.aliases}
	cases := l.file(doc.file, doc.root, items)
	added := l.journal
	l.journal = nil
	// Loading may stop before the last item over a problem with the
	// file's own keys: the whole parse would still report an item that
	// does not parse, so the rest are parsed to find out. A load told to
	// stop (an interrupted run) does not.
	for i := items.handed; !l.stop && i < items.len() && !items.failed; i++ {
		items.item(i)
	}
	if !items.failed {
		return cases
	}
	l.problems = l.problems[:problems]
	clear(l.cases[before:])
	l.cases = l.cases[:before]
	for _, id := range added {
		delete(l.ids, id)
	}
	if l.whole == nil {
		l.whole = map[string]bool{}
	}
	l.whole[doc.file] = true
	if l.emitted > emitted {
		if l.retract == nil {
			l.add(registry.Pos{File: doc.file}, "", "changed while the run read it (its cases no longer parse one by one as they did when checked); run again")
			return nil
		}
		l.retract(emitted)
		l.emitted = emitted
	}
	root, problem := parseYAML(doc.file, doc.data, suiteEmpty)
	if problem != nil {
		l.problems = append(l.problems, *problem)
		return nil
	}
	return l.file(doc.file, root, nil)
}

// splitItems hands out a split file's case items, each parsed when asked
// for; failed is set when one does not parse on its own, or when its
// aliases take the file's count past yamldoc.MaxValues: the whole parse
// then reports that (parseYAML), as for a file it cannot split.
type splitItems struct {
	data  []byte
	items []suiteItem
	// aliases counts what the file's aliases stand for, the frame's
	// first, then each item's as it is handed out.
	aliases *yamldoc.Aliases
	// anchored are the items so far that define anchors; an item that
	// does not parse alone is parsed after them, so an alias to an
	// earlier item's anchor resolves (a shared `tools: &t` is common).
	anchored []anchoredItem
	failed   bool
	// batch holds the nodes of items batchStart on, parsed together (one
	// parser for itemBatch items, not one each), after the anchored items
	// when they do not parse without them. When they do not parse as
	// their items at all, batch is empty and the alone items from
	// batchStart are parsed one by one.
	batch      []batchedItem
	batchStart int
	alone      int
	// handed is how many items item has been asked for, in order.
	handed int
}

// batchedItem is an item's node from a batch parse and what it defines
// and uses.
type batchedItem struct {
	node *yaml.Node
	refs anchorRefs
}

// itemBatch is how many items are parsed together: the nodes of a batch
// are a few of the file's cases, so memory stays flat in cases.
const itemBatch = 32

type anchoredItem struct {
	suiteItem
	anchorRefs
}

// maxAnchored bounds the items parsed again before each item that needs
// them; a file with more anchors is parsed whole.
const maxAnchored = 64

func (s *splitItems) len() int { return len(s.items) }

func (s *splitItems) item(i int) (*yaml.Node, bool) {
	it := s.items[i]
	s.handed = max(s.handed, i+1)
	if i < s.batchStart || i >= s.batchStart+max(len(s.batch), s.alone) {
		s.batchStart, s.alone = i, 0
		next := s.items[i:min(i+itemBatch, len(s.items))]
		s.batch = parseBatch(s.data, nil, next, s.batch[:0])
		if len(s.batch) == 0 && len(s.anchored) > 0 {
			s.batch = parseBatch(s.data, s.anchoredItems(), next, s.batch)
		}
		if len(s.batch) == 0 {
			s.alone = len(next)
		}
	}
	var n *yaml.Node
	var refs anchorRefs
	ok := false
	if k := i - s.batchStart; k < len(s.batch) {
		b := &s.batch[k]
		n, refs, ok = b.node, b.refs, true
		b.node = nil // the case holds what it needs
	} else {
		n, refs, ok = parseItem(s.data, it, nil)
	}
	if !ok && len(s.anchored) > 0 {
		n, refs, ok = parseItem(s.data, it, s.anchoredItems())
	}
	if ok && refs.alias {
		if s.aliases == nil {
			s.aliases = &yamldoc.Aliases{}
		}
		// Counted before any loader follows them; past the limit, the
		// item is not read.
		ok = s.aliases.Check(n, "") == nil
	}
	if ok && len(refs.anchors) > 0 {
		s.addAnchored(anchoredItem{it, refs})
		if len(s.anchored) > maxAnchored {
			ok = false
		}
	}
	if !ok {
		s.failed = true
	}
	return n, ok
}

// anchoredItems are the items an item or batch that uses an alias is
// parsed after.
func (s *splitItems) anchoredItems() []suiteItem {
	prefix := make([]suiteItem, len(s.anchored))
	for j, a := range s.anchored {
		prefix[j] = a.suiteItem
	}
	return prefix
}

// addAnchored keeps a new anchor-defining item. An earlier one whose
// anchors it all redefines is dropped (a copied case redefining its
// `&tools` each time), but only while no kept item uses an alias: such an
// item's value may come from the dropped definition, and parsing it again
// without that item would resolve its alias to another.
func (s *splitItems) addAnchored(a anchoredItem) {
	aliases := a.alias
	for _, e := range s.anchored {
		aliases = aliases || e.alias
	}
	if !aliases {
		s.anchored = slices.DeleteFunc(s.anchored, func(e anchoredItem) bool {
			for _, name := range e.anchors {
				if !slices.Contains(a.anchors, name) {
					return false
				}
			}
			return true
		})
	}
	s.anchored = append(s.anchored, a)
}

// file loads the cases of one file's tree; items, when not nil, gives the
// case items instead of the tree's `cases` value, and loading stops at the
// first it cannot give.
func (l *suiteLoader) file(file string, root *yaml.Node, items *splitItems) []Case {
	y := &ynode{file: file, l: l}
	if root.Kind != yaml.MappingNode {
		y.problem(root, "", "must be a mapping with suite, defaults and cases; got %s", yamlkind.Of(root))
		return nil
	}
	var kind string
	var defaults suiteDefaults
	var casesNode *yaml.Node
	y.fields(root, "", suiteFields, func(key string, v *yaml.Node) {
		switch key {
		case "suite":
			kind = y.str(v, "suite")
			if kind != "" && !slices.Contains(suiteKinds, kind) {
				y.problem(v, "suite", "must be one of %s, got %q", strings.Join(suiteKinds, ", "), kind)
				kind = ""
			}
		case "defaults":
			defaults = y.defaults(v)
		case "cases":
			casesNode = v
		}
	})
	if y.missing(root, "", "suite", kind == "" && !hasKey(root, "suite")) ||
		y.missing(root, "", "cases", casesNode == nil) {
		return nil
	}
	if items != nil {
		before := len(l.cases)
		for i := range items.len() {
			if l.stop {
				return nil
			}
			item, ok := items.item(i)
			if !ok {
				return nil
			}
			if c, ok := y.caseNode(resolve(item), caseField(i), kind, defaults); ok {
				l.keep(c)
			}
		}
		return l.added(before)
	}
	if casesNode.Kind != yaml.SequenceNode {
		y.problem(casesNode, "cases", "must be a list of cases, got %s; start each case with \"- id: ...\"", yamlkind.Of(casesNode))
		return nil
	}
	before := len(l.cases)
	for i, item := range casesNode.Content {
		if l.stop {
			return nil
		}
		c, ok := y.caseNode(resolve(item), caseField(i), kind, defaults)
		if ok {
			l.keep(c)
		}
		// The case holds what it needs; its nodes can go before the rest
		// of a large file is read.
		casesNode.Content[i] = nil
	}
	return l.added(before)
}

// caseField is the field of case item i: cases[i].
func caseField(i int) string {
	var b [32]byte
	return string(append(strconv.AppendInt(append(b[:0], "cases["...), int64(i), 10), ']'))
}

// added is the cases loaded since there were before, nil when none.
func (l *suiteLoader) added(before int) []Case {
	if len(l.cases) == before {
		return nil
	}
	return l.cases[before:]
}

// countCases is how many case items the files hold, as far as a quick
// look at each (splitSuite) tells: the capacity to load them into. A file
// it cannot split, or read, counts 0; loading finds out the rest.
func countCases(files []string) int {
	n := 0
	for _, f := range files {
		data, err := inputfile.ReadFile(f, inputfile.DefaultLimit)
		if err != nil {
			continue
		}
		if sp, ok := splitSuite(data); ok {
			n += len(sp.items)
		}
	}
	return n
}

func (y *ynode) defaults(n *yaml.Node) suiteDefaults {
	var d suiteDefaults
	if n.Kind != yaml.MappingNode {
		y.problem(n, "defaults", "must be a mapping (caller, now, tags), got %s", yamlkind.Of(n))
		return d
	}
	y.fields(n, "defaults", defaultFields, func(key string, v *yaml.Node) {
		switch key {
		case "caller":
			d.caller, d.hasCaller = y.caller(v, "defaults.caller"), true
		case "now":
			d.now = y.now(v, "defaults.now")
		case "tags":
			d.tags = y.tags(v, "defaults.tags")
		}
	})
	return d
}

func (y *ynode) caseNode(n *yaml.Node, field, kind string, defaults suiteDefaults) (Case, bool) {
	c := Case{Suite: kind, Caller: defaults.caller, Now: defaults.now, Pos: y.pos(n)}
	if n.Kind != yaml.MappingNode {
		y.problem(n, field, "must be a mapping with id, input and expect, got %s", yamlkind.Of(n))
		return c, false
	}
	before := len(y.l.problems)
	var expectNode, toolsNode, turnsNode *yaml.Node
	var wfParts map[string]*yaml.Node // made for a workflow case only
	var tags []string
	y.fields(n, field, caseFields, func(key string, v *yaml.Node) {
		switch key {
		case "id":
			c.ID = y.text(v, field, key)
		case "input":
			c.Input = y.text(v, field, key)
		case "tags":
			tags = y.tags(v, field+"."+key)
		case "caller":
			c.Caller = y.caller(v, field+"."+key)
		case "now":
			c.Now = y.now(v, field+"."+key)
		case "expect":
			expectNode = v
		case "turns":
			turnsNode = v
		case "tools":
			toolsNode = v
		case "tools_sim", "model_script", "confirm", "resume":
			if wfParts == nil {
				wfParts = map[string]*yaml.Node{}
			}
			wfParts[key] = v
		}
	})
	if y.l.noIntern {
		c.Tags = mergeTags(defaults.tags, tags)
	} else {
		c.Tags = y.l.interner().mergedTags(defaults.tags, tags)
	}
	if c.ID == "" {
		y.problem(n, field+".id", "is missing; give every case a unique id")
	} else if why := idProblem(c.ID); why != "" {
		y.problem(keyOf(n, "id"), field+".id", "%q %s", c.ID, why)
	} else if y.l.ids == nil {
		// a streamed load checks ids for duplicates after (SuiteSet)
	} else if first, dup := y.l.ids[c.ID]; dup {
		y.problem(n, field+".id", "duplicate case id %q (first at %s); case ids must be unique across all suites", c.ID, first)
	} else {
		// The id is kept (here, and by the case) as its own copy: the
		// parser's values are slices of the file's text, which one kept
		// value would keep in memory whole, its batch of cases' text at
		// least.
		c.ID = strings.Clone(c.ID)
		y.l.ids[c.ID] = c.Pos
		if y.l.journal != nil {
			y.l.journal = append(y.l.journal, c.ID)
		}
	}
	// An empty input is a legitimate adversarial case (malformed text); a
	// missing one is a mistake.
	if !hasKey(n, "input") && turnsNode == nil {
		y.problem(n, field+".input", "is missing; write the user's request as input (\"\" for an empty message), or a conversation as turns")
	}
	// Skill names are checked against the case's own tools when it has
	// them (they replace the version's registry), else against the union of
	// the versions' registries; not at all when neither is known.
	var toolsValue any
	skills := y.l.known
	if toolsNode != nil {
		c.Tools, toolsValue = y.tools(toolsNode, field+".tools")
		skills = skillIndex{}
		if c.Tools != nil {
			skills = newSkillIndex([]*registry.Registry{c.Tools})
		}
	}
	var wfValue any
	if turnsNode != nil {
		y.conversationConflicts(n, field, wfParts)
		c.Turns = y.turns(turnsNode, field+".turns", skills)
	} else if len(wfParts) > 0 || expectsWorkflow(expectNode) {
		c.Workflow, wfValue = y.workflowCase(wfParts, field, skills)
	}
	switch {
	case turnsNode != nil:
		// Each turn carries its own expect; conversationConflicts refuses one here.
	case expectNode == nil:
		y.problem(n, field+".expect", "is missing; say what the router should do (action: execute|confirm|clarify|refuse)")
	default:
		c.Expect = y.expect(expectNode, field+".expect", skills, c.Workflow)
	}
	if !skills.empty() {
		for i, name := range c.Caller.Disabled {
			if !skills.has(name) {
				y.problem(n, fmt.Sprintf("%s.caller.disabled[%d]", field, i), "unknown skill %q%s", name, skills.hint(name))
			}
		}
	}
	if len(y.l.problems) > before {
		return c, false
	}
	c.Hash = y.l.caseHash(&c, toolsValue, wfValue)
	if y.l.noIntern {
		return c, true
	}
	y.l.interner().compact(&c)
	return c, true
}

// idProblem says why a case id cannot be used, or "". Ids reach terminal
// tables, HTML and JUnit reports, results.jsonl and `replay` arguments, so
// an id is one line of printable text: a control character breaks lines
// and XML; a bidirectional control (U+202A-U+202E, U+2066-U+2069, U+200E,
// U+200F, U+061C) makes it display as something it is not; other
// non-printing characters (zero-width or non-ASCII spaces) make two ids
// look alike, and so do spaces at either end. Ids are not Ginkgo labels
// (see Labels), so the label characters &|!,()/ are allowed.
func idProblem(id string) string {
	const advice = "case ids are one line of printable text, e.g. orders-001"
	i := 0
	for _, r := range id {
		i++
		switch {
		case unicode.IsControl(r):
			return fmt.Sprintf("holds a control character (U+%04X) at rune %d; %s", r, i, advice)
		case isBidiControl(r):
			return fmt.Sprintf("holds a bidirectional control (U+%04X) at rune %d, which makes it display differently from what it is; remove it", r, i)
		case !unicode.IsPrint(r):
			return fmt.Sprintf("holds a non-printing character (U+%04X) at rune %d; %s", r, i, advice)
		}
	}
	if strings.TrimSpace(id) != id {
		return "starts or ends with a space; remove it"
	}
	return ""
}

func isBidiControl(r rune) bool {
	return r == 0x061C || r == 0x200E || r == 0x200F || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}

// caseHash is sha256 over the canonical JSON of what decides a case's
// result (a conversation's turns included); encoding/json sorts map keys,
// which makes it canonical. wf is
// a workflow case's scripts (tools_sim, model_script, confirm, resume) as
// plain values, nil for other cases, whose hash it leaves as it was.
// The canonical JSON is written into the loader's buffer: one allocation
// a case, the hash's text.
func (l *suiteLoader) caseHash(c *Case, tools, wf any) string {
	if tools == nil && wf == nil {
		// Most cases: the canonical JSON written without reflection (a
		// good part of loading a large suite was json.Marshal here).
		b, ok := appendCanonicalCase(l.hashBuf[:0], c)
		l.hashBuf = b[:0]
		if ok {
			return hashText(sha256.Sum256(b))
		}
	}
	return caseHashByJSON(*c, tools, wf)
}

// hashText is a sha256 sum in hex.
func hashText(sum [sha256.Size]byte) string {
	var text [2 * sha256.Size]byte
	hex.Encode(text[:], sum[:])
	return string(text[:])
}

// appendCanonicalCase appends what caseHashByJSON hashes for a case with
// no tools and no workflow: the results encoder's expectation and caller,
// which are json.Marshal's bytes. ok is false when a value must be left to
// json.Marshal.
func appendCanonicalCase(b []byte, c *Case) ([]byte, bool) {
	var e resultEncoder
	b = e.firstKey(append(b, '{'), "input")
	b = e.str(b, c.Input)
	b = e.caller(e.key(b, "caller"), &c.Caller)
	b = e.str(e.key(b, "now"), c.Now)
	b = e.expect(e.key(b, "expect"), &c.Expect)
	b = append(e.key(b, "tools"), "null"...)
	if len(c.Turns) > 0 {
		b = append(e.key(b, "turns"), '[')
		for i := range c.Turns {
			if i > 0 {
				b = append(b, ',')
			}
			t := &c.Turns[i]
			b = e.firstKey(append(b, '{'), "input")
			b = e.str(b, t.Input)
			b = append(e.expect(e.key(b, "expect"), &t.Expect), '}')
		}
		b = append(b, ']')
	}
	return append(b, '}'), !e.failed
}

// caseHashByJSON is caseHash by json.Marshal, for any case.
func caseHashByJSON(c Case, tools, wf any) string {
	canon := struct {
		Input    string        `json:"input"`
		Caller   router.Caller `json:"caller"`
		Now      string        `json:"now"`
		Expect   Expect        `json:"expect"`
		Tools    any           `json:"tools"`
		Workflow any           `json:"workflow,omitempty"`
		// omitempty: a single case hashes as it always did.
		Turns []Turn `json:"turns,omitempty"`
	}{c.Input, c.Caller, c.Now, c.Expect, tools, wf, c.Turns}
	b, err := json.Marshal(canon)
	if err != nil {
		// Only tools can hold unencodable values; hash what the text says.
		b = fmt.Appendf(nil, "%#v", canon)
	}
	return hashText(sha256.Sum256(b))
}

func mergeTags(defaults, own []string) []string {
	if len(defaults) == 0 {
		return own
	}
	out := append(make([]string, 0, len(defaults)+len(own)), defaults...)
	for _, t := range own {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func (y *ynode) caller(n *yaml.Node, field string) router.Caller {
	var c router.Caller
	if n.Kind != yaml.MappingNode {
		y.problem(n, field, "must be a mapping {scopes: [...], disabled: [...]}, got %s", yamlkind.Of(n))
		return c
	}
	y.fields(n, field, callerFields, func(key string, v *yaml.Node) {
		switch key {
		case "scopes":
			c.Scopes = y.strList(v, field+".scopes")
		case "disabled":
			c.Disabled = y.strList(v, field+".disabled")
		}
	})
	return c
}

func (y *ynode) now(n *yaml.Node, field string) string {
	s := y.str(n, field)
	if s == "" {
		return ""
	}
	if _, err := time.Parse(time.RFC3339, s); err != nil {
		y.problem(n, field, "must be an RFC 3339 time such as \"2026-11-30T10:00:00+08:00\", got %q", s)
		return ""
	}
	return s
}

// tags become Ginkgo labels ("tag" itself and lang:/suite: filters), so
// they must be valid labels.
func (y *ynode) tags(n *yaml.Node, field string) []string {
	tags := y.strList(n, field)
	for i, t := range tags {
		if t == "" || strings.ContainsAny(t, "&|!,()/ \t") || strings.HasPrefix(t, ":") {
			y.problem(n, fmt.Sprintf("%s[%d]", field, i), "tag %q is not usable as a label; use letters, digits, - _ . : without spaces or &|!,()/", t)
		}
	}
	return tags
}

// tools parses a case's own skill set in skills.yaml format: a list of
// skills, or a mapping with `skills:`. It returns the registry and the
// plain value for the case hash.
func (y *ynode) tools(n *yaml.Node, field string) (*registry.Registry, any) {
	plain, err := nodeValue(n)
	if err != nil {
		y.problem(n, field, "cannot be read: %v", err)
		return nil, nil
	}
	skills, err := registry.ParseSkillsNode(y.file, n)
	if err == nil {
		var reg *registry.Registry
		reg, err = registry.New(skills)
		if err == nil {
			return reg, plain
		}
	}
	if le, ok := err.(*registry.LoadError); ok {
		for _, p := range le.Problems {
			if p.Pos.File == "" || p.Pos.File == "registry" {
				p.Pos = y.pos(n)
			}
			p.Field = field + strings.TrimPrefix(p.Field, "skills")
			y.l.problems = append(y.l.problems, oneLine(p))
		}
	} else {
		y.problem(n, field, "%v", err)
	}
	return nil, nil
}
