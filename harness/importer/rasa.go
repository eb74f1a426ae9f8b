package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/routebench/routebench/internal/yamldoc"
	"github.com/routebench/routebench/internal/yamlkind"
)

// Rasa training-data keys that are not NLU: read past with a note. The
// domain's keys are here too, as projects keep domain and NLU in one file.
var rasaIgnoredKeys = []string{"responses", "rules", "stories", "intents", "entities", "slots", "forms", "actions", "session_config", "e2e_actions"}

// entityMarkup finds Rasa's entity annotations: [text](entity),
// [text](entity:value) and [text]{"entity": ..., "value": ..., "role": ...}.
var entityMarkup = regexp.MustCompile(`\[([^\]\n]+)\](?:\(([^)\n]+)\)|(\{[^}\n]*\}))`)

// rasaEntity is the JSON form of an annotation.
type rasaEntity struct {
	Entity string `json:"entity"`
	Value  any    `json:"value"`
	Role   string `json:"role"`
	Group  string `json:"group"`
}

type rasaRegex struct {
	pattern string
	where   string
}

// rasaFile is what the NLU part of a Rasa file says.
type rasaFile struct {
	path     string
	items    []Utterance
	intents  []string
	synonyms map[string]string   // lower(text) -> canonical value
	synOf    map[string][]string // canonical value -> texts
	synWhere map[string]string
	lookups  map[string][]string // lookup name -> values
	lookupAt map[string]string
	regexes  map[string][]rasaRegex
	// per param: the entity it holds, the canonical values and the texts
	// it was written as.
	paramEntity map[string]string
	paramValues map[string]map[string]bool
	paramTexts  map[string]map[string]bool
	labelParams map[string]map[string]bool
	groups      int
	repeated    int
	// alsoSeen are values of an entity annotated again in one example:
	// not the expected param, but values the param takes all the same.
	alsoSeen map[string][]string
	r        *Report
}

// ImportRasa reads Rasa NLU training data (YAML, version "3.1" and the
// like): one skill per intent; entity annotations become string params of
// their intent's skill, with the example's values as expected params
// (an entity with a role is the param ENTITY_ROLE). Synonyms and lookup
// tables make an entity's param an enum (the values the data set names,
// synonyms as x-synonyms); a regex named after an entity becomes the
// param's pattern when every annotated value matches it; a regex named
// after an intent is not made a trigger (Rasa uses it as a classifier
// feature, a trigger decides alone) and is reported as ignored. responses,
// rules, stories and domain keys in the same file are ignored with a note.
func ImportRasa(path, out string, opt IntentOptions) (*Report, error) {
	opt = opt.withDefaults()
	files, dir, err := rasaFiles(path)
	if err != nil {
		return nil, err
	}
	r := &Report{Source: "rasa " + path}
	f := &rasaFile{path: path, r: r, synonyms: map[string]string{}, synOf: map[string][]string{}, synWhere: map[string]string{},
		lookups: map[string][]string{}, lookupAt: map[string]string{}, regexes: map[string][]rasaRegex{},
		paramEntity: map[string]string{}, paramValues: map[string]map[string]bool{}, paramTexts: map[string]map[string]bool{}, labelParams: map[string]map[string]bool{}}
	for _, file := range files {
		data, err := readInput(file)
		if err != nil {
			return nil, err
		}
		root, err := yamldoc.Parse(data)
		if dir && root != nil && !hasKey(root, "nlu") || dir && isEmptyYAML(err) {
			// A project's data folder also holds rules, stories and the
			// domain: only the files with NLU examples are imported.
			r.note("%s skipped: no nlu: section", file)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		// The walk below follows aliases (examples: *e under every
		// intent), so what they stand for is counted first.
		if e := new(yamldoc.Aliases).Check(root, ""); e != nil {
			return nil, fmt.Errorf("%s:%d: %s: %s", file, e.Alias.Line, e.Field, e.Message())
		}
		f.path = file
		if err := f.read(root); err != nil {
			return nil, err
		}
	}
	f.path = path
	if len(f.items) == 0 {
		return nil, fmt.Errorf("%s: no intent examples under nlu:; want - intent: NAME with examples: | - text lines", path)
	}
	// Synonyms apply to annotated values wherever they stand, as Rasa's
	// synonym mapper does: a value written as a synonym is its canonical one.
	for i, u := range f.items {
		for p, v := range u.Params {
			if s, ok := v.(string); ok {
				if canon, ok := f.synonyms[strings.ToLower(s)]; ok && canon != s {
					f.items[i].Params[p] = canon
				}
			}
		}
	}
	for _, u := range f.items {
		for p, v := range u.Params {
			f.paramValues[p][fmt.Sprint(v)] = true
		}
	}
	for p, vs := range f.alsoSeen {
		for _, v := range vs {
			if canon, ok := f.synonyms[strings.ToLower(v)]; ok {
				v = canon
			}
			f.paramValues[p][v] = true
		}
	}
	params := f.schemas(opt.OOSLabels)
	if f.groups > 0 {
		r.note("%d entity annotations carry a group: not imported (a param has no group)", f.groups)
	}
	if f.repeated > 0 {
		r.note("%d examples annotate the same entity twice: the first value is the expected param", f.repeated)
	}
	base := filepath.Base(filepath.Clean(path))
	if !dir {
		base = strings.TrimSuffix(base, filepath.Ext(base))
	}
	err = writeIntentSet(r, out, intentSet{
		source:      "rasa",
		versionName: versionName("rasa-" + base),
		description: fmt.Sprintf("Rasa NLU data %s: one skill per intent, entities as params", filepath.Base(path)),
		items:       f.items,
		params:      params,
		oosLabels:   opt.OOSLabels,
		evalSplits:  opt.EvalSplits,
		bands:       opt.Bands,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

func (f *rasaFile) errorf(n *yaml.Node, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", f.path, n.Line, fmt.Sprintf(format, args...))
}

// read walks the top level: version and nlu are read, the rest noted.
func (f *rasaFile) read(root *yaml.Node) error {
	if root.Kind != yaml.MappingNode {
		return f.errorf(root, "a Rasa file is a mapping with version and nlu, got %s", yamlkind.Of(root))
	}
	sawNLU := false
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], yamldoc.Resolve(root.Content[i+1])
		switch {
		case k.Value == "version":
			if v.Kind != yaml.ScalarNode || !strings.HasPrefix(v.Value, "3") && !strings.HasPrefix(v.Value, "2") {
				f.r.note("version %q: read as Rasa 3 NLU data", v.Value)
			}
		case k.Value == "nlu":
			sawNLU = true
			if err := f.nlu(v); err != nil {
				return err
			}
		case slices.Contains(rasaIgnoredKeys, k.Value):
			f.r.note("%s (%s:%d) ignored: routebench imports the NLU examples; %s is dialogue or domain data", k.Value, f.path, k.Line, k.Value)
		default:
			return f.errorf(k, "unknown key %q; a Rasa NLU file has version and nlu (responses, rules, stories and domain keys are read past)", k.Value)
		}
	}
	if !sawNLU {
		return f.errorf(root, "no nlu: list; nothing to import")
	}
	return nil
}

var rasaItemKeys = []string{"intent", "synonym", "regex", "lookup", "examples", "metadata"}

func (f *rasaFile) nlu(n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode {
		return f.errorf(n, "nlu must be a list of - intent: ... items, got %s", yamlkind.Of(n))
	}
	for _, item := range n.Content {
		item = yamldoc.Resolve(item)
		if item.Kind != yaml.MappingNode {
			return f.errorf(item, "an nlu item is a mapping such as {intent: greet, examples: ...}, got %s", yamlkind.Of(item))
		}
		fields := map[string]*yaml.Node{}
		kind := ""
		for i := 0; i+1 < len(item.Content); i += 2 {
			k := item.Content[i]
			if !slices.Contains(rasaItemKeys, k.Value) {
				return f.errorf(k, "unknown key %q in an nlu item; use one of %s", k.Value, strings.Join(rasaItemKeys, ", "))
			}
			fields[k.Value] = yamldoc.Resolve(item.Content[i+1])
			if k.Value != "examples" && k.Value != "metadata" {
				if kind != "" {
					return f.errorf(k, "an nlu item is one of intent, synonym, regex, lookup; this one has %s and %s", kind, k.Value)
				}
				kind = k.Value
			}
		}
		if kind == "" {
			return f.errorf(item, "an nlu item needs one of intent, synonym, regex, lookup")
		}
		name := fields[kind]
		if name.Kind != yaml.ScalarNode || strings.TrimSpace(name.Value) == "" {
			return f.errorf(name, "%s must be a name, got %s", kind, yamlkind.Of(name))
		}
		ex := fields["examples"]
		if ex == nil {
			return f.errorf(item, "%s %s has no examples", kind, name.Value)
		}
		lines, err := f.examples(ex)
		if err != nil {
			return err
		}
		if err := f.add(kind, strings.TrimSpace(name.Value), lines); err != nil {
			return err
		}
	}
	return nil
}

// exampleLine is one example as written, and where.
type exampleLine struct {
	text string
	line int
}

// examples reads an examples block (`examples: |` with "- text" lines) or
// a list of strings or {text: ...} mappings.
func (f *rasaFile) examples(n *yaml.Node) ([]exampleLine, error) {
	var out []exampleLine
	switch n.Kind {
	case yaml.ScalarNode:
		first := n.Line
		if n.Style == yaml.LiteralStyle || n.Style == yaml.FoldedStyle {
			first++ // the block starts on the line after the indicator
		}
		for i, raw := range strings.Split(n.Value, "\n") {
			s := strings.TrimSpace(raw)
			if s == "" {
				continue
			}
			text, ok := strings.CutPrefix(s, "-")
			if !ok {
				return nil, fmt.Errorf("%s:%d: %q: an example line starts with \"- \"", f.path, first+i, truncate(s, 60))
			}
			out = append(out, exampleLine{text: strings.TrimSpace(text), line: first + i})
		}
	case yaml.SequenceNode:
		for _, it := range n.Content {
			it = yamldoc.Resolve(it)
			switch it.Kind {
			case yaml.ScalarNode:
				out = append(out, exampleLine{text: strings.TrimSpace(it.Value), line: it.Line})
			case yaml.MappingNode:
				var text *yaml.Node
				for i := 0; i+1 < len(it.Content); i += 2 {
					switch it.Content[i].Value {
					case "text":
						text = yamldoc.Resolve(it.Content[i+1])
					case "metadata":
					default:
						return nil, f.errorf(it.Content[i], "unknown key %q in an example; use text (and metadata)", it.Content[i].Value)
					}
				}
				if text == nil || text.Kind != yaml.ScalarNode {
					return nil, f.errorf(it, "an example mapping needs text: ...")
				}
				out = append(out, exampleLine{text: strings.TrimSpace(text.Value), line: text.Line})
			default:
				return nil, f.errorf(it, "an example is a string or {text: ...}, got %s", yamlkind.Of(it))
			}
		}
	default:
		return nil, f.errorf(n, "examples must be a block of \"- text\" lines (examples: |), got %s", yamlkind.Of(n))
	}
	for _, e := range out {
		if e.text == "" {
			return nil, fmt.Errorf("%s:%d: an empty example; write the text after \"- \"", f.path, e.line)
		}
	}
	return out, nil
}

func (f *rasaFile) add(kind, name string, lines []exampleLine) error {
	at := func(l exampleLine) string { return fmt.Sprintf("%s:%d", f.path, l.line) }
	switch kind {
	case "intent":
		if !slices.Contains(f.intents, name) {
			f.intents = append(f.intents, name)
		}
		for _, l := range lines {
			u, err := f.utterance(name, l)
			if err != nil {
				return err
			}
			f.items = append(f.items, u)
		}
	case "synonym":
		for _, l := range lines {
			key := strings.ToLower(l.text)
			if prev, ok := f.synonyms[key]; ok && prev != name {
				return fmt.Errorf("%s: %q is a synonym of both %q (%s) and %q; keep one", at(l), l.text, prev, f.synWhere[key], name)
			}
			if _, ok := f.synonyms[key]; !ok {
				f.synonyms[key], f.synWhere[key] = name, at(l)
				f.synOf[name] = append(f.synOf[name], l.text)
			}
		}
	case "lookup":
		if _, ok := f.lookupAt[name]; !ok {
			f.lookupAt[name] = at(lines[0])
		}
		for _, l := range lines {
			if !slices.Contains(f.lookups[name], l.text) {
				f.lookups[name] = append(f.lookups[name], l.text)
			}
		}
	case "regex":
		for _, l := range lines {
			f.regexes[name] = append(f.regexes[name], rasaRegex{pattern: l.text, where: at(l)})
		}
	}
	return nil
}

// utterance strips the entity markup from an example, keeping each
// entity's value as the example's param.
func (f *rasaFile) utterance(intent string, l exampleLine) (Utterance, error) {
	u := Utterance{Label: intent, Where: fmt.Sprintf("%s:%d", f.path, l.line)}
	var b strings.Builder
	last := 0
	for _, m := range entityMarkup.FindAllStringSubmatchIndex(l.text, -1) {
		b.WriteString(l.text[last:m[0]])
		text := l.text[m[2]:m[3]]
		b.WriteString(text)
		last = m[1]
		var e rasaEntity
		if m[4] >= 0 {
			e.Entity, e.Value, _ = strings.Cut(l.text[m[4]:m[5]], ":")
			if v, _ := e.Value.(string); v == "" {
				e.Value = nil
			}
		} else if err := json.Unmarshal([]byte(l.text[m[6]:m[7]]), &e); err != nil {
			return u, fmt.Errorf("%s: entity annotation %s is not valid JSON (%v); write {\"entity\": \"name\", \"value\": \"...\"}", u.Where, l.text[m[6]:m[7]], err)
		}
		e.Entity = strings.TrimSpace(e.Entity)
		if e.Entity == "" {
			return u, fmt.Errorf("%s: entity annotation on %q names no entity", u.Where, text)
		}
		if e.Group != "" {
			f.groups++
		}
		param := e.Entity
		if e.Role != "" {
			param += "_" + e.Role
		}
		value := text
		if e.Value != nil {
			value = fmt.Sprint(e.Value)
		}
		if u.Params == nil {
			u.Params = map[string]any{}
		}
		if _, dup := u.Params[param]; dup {
			f.repeated++
			if f.alsoSeen == nil {
				f.alsoSeen = map[string][]string{}
			}
			f.alsoSeen[param] = append(f.alsoSeen[param], value)
			f.paramTexts[param][strings.ToLower(text)] = true
			continue
		}
		u.Params[param] = value
		if prev, ok := f.paramEntity[param]; ok && prev != e.Entity {
			return u, fmt.Errorf("%s: param %s would hold entities %s and %s; rename one role", u.Where, param, prev, e.Entity)
		}
		f.paramEntity[param] = e.Entity
		if f.paramValues[param] == nil {
			f.paramValues[param], f.paramTexts[param] = map[string]bool{}, map[string]bool{}
		}
		f.paramTexts[param][strings.ToLower(text)] = true
		if f.labelParams[intent] == nil {
			f.labelParams[intent] = map[string]bool{}
		}
		f.labelParams[intent][param] = true
	}
	b.WriteString(l.text[last:])
	u.Text = strings.Join(strings.Fields(b.String()), " ")
	if u.Text == "" {
		return u, fmt.Errorf("%s: the example has no text", u.Where)
	}
	return u, nil
}

// schemas builds each intent's param schemas, and reports every synonym,
// lookup table and regex it could not tie to a param.
func (f *rasaFile) schemas(oos []string) map[string]map[string]any {
	usedSyn, usedLookup, usedRegex := map[string]bool{}, map[string]bool{}, map[string]bool{}
	// An entity's params (one per role) share its values, synonyms, lookup
	// table and regex, so they share one schema.
	values, texts, paramsOf := map[string]map[string]bool{}, map[string]map[string]bool{}, map[string][]string{}
	for _, p := range sortedKeys(f.paramEntity) {
		e := f.paramEntity[p]
		if values[e] == nil {
			values[e], texts[e] = map[string]bool{}, map[string]bool{}
		}
		for v := range f.paramValues[p] {
			values[e][v] = true
		}
		for t := range f.paramTexts[p] {
			texts[e][t] = true
		}
		paramsOf[e] = append(paramsOf[e], p)
	}
	byParam := map[string]map[string]any{}
	for _, entity := range sortedKeys(values) {
		schema := map[string]any{"type": "string"}
		syn := map[string]any{}
		for canon, words := range f.synOf {
			applies := values[entity][canon]
			for _, t := range words {
				applies = applies || texts[entity][strings.ToLower(t)]
			}
			if applies {
				syn[canon] = toAnyList(words)
				usedSyn[canon] = true
			}
		}
		lookup, closed := f.lookups[entity]
		params := strings.Join(paramsOf[entity], ", ")
		if closed || len(syn) > 0 {
			enum := map[string]bool{}
			for v := range values[entity] {
				enum[v] = true
			}
			for _, v := range lookup {
				enum[v] = true
			}
			for c := range syn {
				enum[c] = true
			}
			schema["enum"] = toAnyList(sortedKeys(enum))
			if len(syn) > 0 {
				schema["x-synonyms"] = syn
			}
			usedLookup[entity] = closed
			if len(f.regexes[entity]) > 0 {
				usedRegex[entity] = true
				f.r.note("regex %s (%s) not used: %s is an enum (lookup table or synonyms)", entity, f.regexes[entity][0].where, params)
			}
		} else if res := f.regexes[entity]; len(res) > 0 {
			usedRegex[entity] = true
			if pat, why := entityPattern(res, values[entity]); why != "" {
				f.r.note("regex %s (%s) not used for %s: %s", entity, res[0].where, params, why)
			} else {
				schema["pattern"] = pat
			}
		}
		for _, p := range paramsOf[entity] {
			byParam[p] = schema
		}
	}
	for _, c := range sortedKeys(f.synOf) {
		if !usedSyn[c] {
			f.r.note("synonym %s (%s) ignored: no annotated entity has that value or is written as one of its synonyms", c, f.synWhere[strings.ToLower(f.synOf[c][0])])
		}
	}
	for _, l := range sortedKeys(f.lookups) {
		if !usedLookup[l] {
			f.r.note("lookup %s (%s) ignored: no entity of that name is annotated", l, f.lookupAt[l])
		}
	}
	for _, name := range sortedKeys(f.regexes) {
		switch {
		case usedRegex[name]:
		case slices.Contains(f.intents, name):
			f.r.note("regex %s (%s) ignored: it names an intent, and Rasa uses such a regex as one classifier feature among many; a routebench trigger decides alone with confidence 1.0, so it is not made one", name, f.regexes[name][0].where)
		default:
			f.r.note("regex %s (%s) ignored: no entity or intent of that name", name, f.regexes[name][0].where)
		}
	}
	out := map[string]map[string]any{}
	for label, ps := range f.labelParams {
		if slices.Contains(oos, label) {
			continue
		}
		out[label] = map[string]any{}
		for p := range ps {
			out[label][p] = byParam[p]
		}
	}
	return out
}

// entityPattern anchors an entity's regexes as a JSON Schema pattern; why
// says why it cannot be used: it does not compile as Go (RE2) syntax, or
// an annotated value does not match it whole.
func entityPattern(res []rasaRegex, values map[string]bool) (string, string) {
	alts := make([]string, len(res))
	for i, r := range res {
		if _, err := regexp.Compile(r.pattern); err != nil {
			return "", fmt.Sprintf("%q does not compile as RE2 (%v)", r.pattern, err)
		}
		alts[i] = r.pattern
	}
	pat := "^(?:" + strings.Join(alts, "|") + ")$"
	re := regexp.MustCompile(pat)
	vals := sortedKeys(values)
	sort.Strings(vals)
	for _, v := range vals {
		if !re.MatchString(v) {
			return "", fmt.Sprintf("the annotated value %q does not match it whole", v)
		}
	}
	return pat, ""
}

func toAnyList(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// rasaFiles is what a Rasa import reads: the file given, or every .yml and
// .yaml file below a folder (a project's data/, where NLU examples may be
// split over several files), in path order, hidden entries skipped.
func rasaFiles(path string) (files []string, dir bool, err error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", path, err)
	}
	if !info.IsDir() {
		return []string{path}, false, nil
	}
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != path && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if ext := strings.ToLower(filepath.Ext(p)); !d.IsDir() && (ext == ".yml" || ext == ".yaml") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, true, fmt.Errorf("read %s: %w", path, err)
	}
	if len(files) == 0 {
		return nil, true, fmt.Errorf("%s: no .yml or .yaml files in the folder; give Rasa NLU data (data/nlu.yml or its folder)", path)
	}
	sort.Strings(files)
	return files, true, nil
}

func hasKey(root *yaml.Node, key string) bool {
	if root.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == key {
			return true
		}
	}
	return false
}

func isEmptyYAML(err error) bool {
	var ye *yamldoc.Error
	return errors.As(err, &ye) && ye.Message == yamldoc.ErrEmpty
}
