package importer

import (
	"fmt"
	"hash/fnv"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// Utterance is one labelled example of an intent data set (Rasa NLU, CSV).
type Utterance struct {
	Text  string
	Label string
	// Split is the file's own split ("train", "val", "test"); "" when the
	// file has none, and the importer carves one.
	Split string
	// Params are the values the text states (Rasa entities).
	Params map[string]any
	// Where names the source line, for notes.
	Where string
}

// DefaultOOSLabels are labels that mean "none of the intents": their
// examples become refusal cases, not a skill.
var DefaultOOSLabels = []string{"oos", "out_of_scope", "nlu_fallback"}

// intentSet is what the Rasa and CSV importers hand to writeIntentSet.
type intentSet struct {
	source      string // "rasa", "csv": case ids and tags
	versionName string
	description string
	items       []Utterance
	// params are each label's param schemas (by param name).
	params     map[string]map[string]any
	oosLabels  []string
	evalSplits []string
	bands      BandsDoc
}

// valShare is the part of each label's examples carved into val when the
// file has no split.
const valShare = 0.2

// writeIntentSet writes one skill per in-scope label (its train examples
// as examples, its params) and one suite per eval split: in-scope items
// expect execute of their label with their params ("normal"), items of an
// OOS label expect refuse ("boundary", file oos_SPLIT.yaml).
func writeIntentSet(r *Report, out string, s intentSet) error {
	hasSplit := slices.ContainsFunc(s.items, func(u Utterance) bool { return u.Split != "" })
	if !hasSplit {
		s.items = carveVal(s.items, s.oosLabels)
		r.note("no split in the file: carved val from each label's examples (the ~%d%% whose text hashes lowest, at least one kept for train); out-of-scope examples all go to val", int(valShare*100))
	}
	names := newNamer()
	labels := map[string]bool{}
	for _, u := range s.items {
		if !slices.Contains(s.oosLabels, u.Label) {
			labels[u.Label] = true
		}
	}
	// Labels the registry accepts as they are keep their names; the others
	// are cleaned after them, in sorted order, so a clash never renames a
	// label that was fine.
	for _, l := range sortedKeys(labels) {
		if registryName(l) == l {
			names.name(l)
		}
	}
	for _, l := range sortedKeys(labels) {
		names.name(l)
	}
	names.report(r, "label")
	examples := map[string][]ExampleDoc{}
	bySplit := map[string][]Utterance{}
	for _, u := range s.items {
		oos := slices.Contains(s.oosLabels, u.Label)
		switch {
		case u.Split == "train" && oos:
			bySplit["oos_train"] = append(bySplit["oos_train"], u)
		case u.Split == "train":
			examples[u.Label] = append(examples[u.Label], ExampleDoc{Input: u.Text, Params: u.Params})
		default:
			bySplit[u.Split] = append(bySplit[u.Split], u)
		}
	}
	var skills []SkillDoc
	for _, l := range sortedKeys(labels) {
		name := names.name(l)
		if len(examples[l]) == 0 {
			r.note("skill %s has no train examples: every example of %q is in an eval split", name, l)
		}
		sk := SkillDoc{
			Name:        name,
			Description: describeIntent(labelWords(l)),
			WhenToUse:   []string{"the user wants to " + labelWords(l)},
			SideEffect:  "read",
			Examples:    examples[l],
		}
		if p := s.params[l]; len(p) > 0 {
			sk.ParamsSchema = map[string]any{"type": "object", "properties": p}
		}
		skills = append(skills, sk)
	}
	if len(skills) == 0 {
		return fmt.Errorf("no in-scope labels: every label is out of scope (%s)", strings.Join(s.oosLabels, ", "))
	}
	err := r.writeVersion(filepath.Join(out, "version"), VersionDoc{
		Name:        s.versionName,
		Description: s.description,
		TopK:        10,
		Bands:       s.bands,
		Persona:     "You are a task-oriented assistant that maps each user request to exactly one of its intents.\n",
		Constraints: "When a request matches none of the intents, decline and say what you can do.\n",
		Skills:      skills,
	})
	if err != nil {
		return err
	}
	if n := len(bySplit["oos_train"]); n > 0 {
		r.skip("split train", "%d out-of-scope examples: a refusal is not taught by examples, and train is not an eval split", n)
	}
	for _, split := range s.evalSplits {
		items := bySplit[split]
		if len(items) == 0 {
			r.note("split %s: no examples in the file", split)
			continue
		}
		var in, oos []CaseDoc
		for _, u := range items {
			isOOS := slices.Contains(s.oosLabels, u.Label)
			c := CaseDoc{Input: u.Text, Tags: []string{langTag(u.Text), s.source, "split:" + split}}
			if isOOS {
				c.ID = fmt.Sprintf("%s-oos_%s-%04d", s.source, split, len(oos)+1)
				c.Tags = append(c.Tags, "oos")
				c.Expect = ExpectDoc{Action: "refuse"}
				oos = append(oos, c)
				continue
			}
			c.ID = fmt.Sprintf("%s-%s-%04d", s.source, split, len(in)+1)
			c.Tags = append(c.Tags, "in-scope")
			c.Expect = ExpectDoc{Action: "execute", Skill: names.name(u.Label), Params: u.Params}
			in = append(in, c)
		}
		if err := r.writeSuite(filepath.Join(out, "suites", split+".yaml"), SuiteDoc{Suite: "normal", Cases: in}); err != nil {
			return err
		}
		if err := r.writeSuite(filepath.Join(out, "suites", "oos_"+split+".yaml"), SuiteDoc{Suite: "boundary", Cases: oos}); err != nil {
			return err
		}
	}
	for _, split := range sortedKeys(bySplit) {
		if split != "oos_train" && !slices.Contains(s.evalSplits, split) {
			r.skip("split "+split, "%d examples not imported: not an eval split (pass --eval-splits %s to run them)", len(bySplit[split]), strings.Join(append(slices.Clone(s.evalSplits), split), ","))
		}
	}
	return nil
}

// carveVal gives every utterance a split: about valShare of each in-scope
// label's examples go to val (those whose text hashes lowest under FNV-1a,
// so the same file always splits the same way, whatever its order), at
// least one stays in train; out-of-scope examples teach nothing, so all go
// to val.
func carveVal(items []Utterance, oosLabels []string) []Utterance {
	out := slices.Clone(items)
	byLabel := map[string][]int{}
	for i, u := range out {
		if slices.Contains(oosLabels, u.Label) {
			out[i].Split = "val"
			continue
		}
		out[i].Split = "train"
		byLabel[u.Label] = append(byLabel[u.Label], i)
	}
	for _, idx := range byLabel {
		// The split is by distinct text: copies of one text go to the same
		// side, or a val case would also be an example it is tested on.
		var texts []string
		seen := map[string]bool{}
		for _, i := range idx {
			if !seen[out[i].Text] {
				seen[out[i].Text] = true
				texts = append(texts, out[i].Text)
			}
		}
		k := int(math.Round(float64(len(texts)) * valShare))
		if k >= len(texts) {
			k = len(texts) - 1
		}
		sort.Slice(texts, func(a, b int) bool {
			ha, hb := textHash(texts[a]), textHash(texts[b])
			if ha != hb {
				return ha < hb
			}
			return texts[a] < texts[b]
		})
		val := map[string]bool{}
		for _, t := range texts[:k] {
			val[t] = true
		}
		for _, i := range idx {
			if val[out[i].Text] {
				out[i].Split = "val"
			}
		}
	}
	return out
}

func textHash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// ParseLabels splits a comma-separated flag value, dropping empty items.
func ParseLabels(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// labelWords is a label as words for the texts a skill is recalled by:
// separators and punctuation ("check_balance?") become single spaces.
func labelWords(label string) string {
	return strings.Join(strings.FieldsFunc(label, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}
