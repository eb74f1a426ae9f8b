package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// A made-up registry of many skills, for timing routing and fitting as a
// registry grows (issue 15 measures 15 to 1,000 skills). Each skill has
// three topic words of its own and shares a pool of common request words
// with every other skill, as real tool registries share "show", "list",
// "my". Its texts mix the two; a case asks for one skill with its topic
// words in a new order (execute), or holds only common words (refuse).
// Every word is made up, so no data set's wording is in it.

const (
	topicWords  = 3
	commonWords = 60
	// refuseEvery: one case in refuseEvery asks for nothing the registry does.
	refuseEvery = 10
)

// synthRegistry is the made-up registry: skill i's topic words are
// topics[i].
type synthRegistry struct {
	topics [][]string
	common []string
	rng    *rand.Rand
}

func newSynthRegistry(skills int) *synthRegistry {
	rng := rand.New(rand.NewPCG(20261130, uint64(skills)))
	seen := map[string]bool{}
	word := func() string {
		for {
			w := madeUpWord(rng)
			if !seen[w] {
				seen[w] = true
				return w
			}
		}
	}
	r := &synthRegistry{rng: rng}
	for range commonWords {
		r.common = append(r.common, word())
	}
	r.topics = make([][]string, skills)
	for i := range r.topics {
		for range topicWords {
			r.topics[i] = append(r.topics[i], word())
		}
	}
	return r
}

// madeUpWord is two or three consonant-vowel syllables and a final
// consonant: pronounceable, in no dictionary, plain ASCII letters (safe
// unquoted in YAML).
func madeUpWord(rng *rand.Rand) string {
	const consonants, vowels = "bdfgklmnprstvz", "aeiou"
	var b strings.Builder
	for range 2 + rng.IntN(2) {
		b.WriteByte(consonants[rng.IntN(len(consonants))])
		b.WriteByte(vowels[rng.IntN(len(vowels))])
	}
	b.WriteByte(consonants[rng.IntN(len(consonants))])
	return b.String()
}

// phrase is a request for skill s (or for nothing, s < 0): its topic words
// in a random order among common words, words long.
func (r *synthRegistry) phrase(s, words int) string {
	out := make([]string, 0, words)
	if s >= 0 {
		out = append(out, r.topics[s]...)
	}
	for len(out) < words {
		out = append(out, r.common[r.rng.IntN(len(r.common))])
	}
	r.rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return strings.Join(out, " ")
}

func skillName(i int) string { return fmt.Sprintf("synth_%04d", i) }

// writeVersion writes the registry as a prompt version directory.
func (r *synthRegistry) writeVersion(dir string, examples int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := map[string]string{
		"version.yaml": "# Made up by harness/cmd/gencases -skills: a registry for timing, not for accuracy.\n" +
			"name: synthetic-" + fmt.Sprint(len(r.topics)) + "\n" +
			"description: made-up registry of " + fmt.Sprint(len(r.topics)) + " read-only skills\n" +
			"router:\n  top_k: 5\n  embedder: builtin\n  judge: builtin\n  bands:\n    execute: 0.85\n    clarify: 0.60\n",
		"persona.md":     "You route requests to the made-up skills of a timing registry.\n",
		"constraints.md": "Choose one listed skill, or none when no skill fits.\n",
		"contract.schema.json": `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "properties": {
    "skill": {"type": "string", "minLength": 1},
    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
    "params": {"type": "object"},
    "reason": {"type": "string"}
  },
  "required": ["skill", "confidence", "params"],
  "additionalProperties": false
}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return writeLines(filepath.Join(dir, "skills.yaml"), func(w *bufio.Writer) error {
		w.WriteString("skills:\n")
		for i := range r.topics {
			fmt.Fprintf(w, "  - name: %s\n", skillName(i))
			fmt.Fprintf(w, "    description: %s\n", r.phrase(i, 12))
			fmt.Fprintf(w, "    when_to_use:\n      - %s\n      - %s\n", r.phrase(i, 8), r.phrase(i, 8))
			w.WriteString("    side_effect: read\n    permission_scope: [synth:read]\n")
			w.WriteString("    params_schema: {type: object, additionalProperties: false, properties: {}}\n")
			w.WriteString("    examples:\n")
			for range examples {
				fmt.Fprintf(w, "      - {input: %s, params: {}}\n", r.phrase(i, 4+r.rng.IntN(5)))
			}
		}
		return nil
	})
}

// writeSuites writes n cases, a tenth of them refusals, into suite files
// of at most fileCases cases.
func (r *synthRegistry) writeSuites(dir string, n int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for part, from := 1, 0; from < n; part, from = part+1, from+fileCases {
		path := filepath.Join(dir, fmt.Sprintf("synthetic-%d.yaml", part))
		err := writeLines(path, func(w *bufio.Writer) error {
			w.WriteString("suite: normal\n")
			w.WriteString("defaults:\n  caller: {scopes: [synth:read]}\n  now: \"2026-11-30T10:00:00+08:00\"\n")
			w.WriteString("cases:\n")
			for k := from; k < min(n, from+fileCases); k++ {
				if k%refuseEvery == refuseEvery-1 {
					fmt.Fprintf(w, "  - {id: s-%07d, input: %s, expect: {action: refuse}}\n", k, r.phrase(-1, 6))
					continue
				}
				s := r.rng.IntN(len(r.topics))
				fmt.Fprintf(w, "  - {id: s-%07d, input: %s, expect: {action: execute, skill: %s}}\n", k, r.phrase(s, 4+r.rng.IntN(5)), skillName(s))
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// generateRegistry writes the made-up version to out/version, n cases for
// it to out/suites and a routebench.yaml that runs them.
func generateRegistry(n, skills, examples int, out string) error {
	r := newSynthRegistry(skills)
	version := filepath.Join(out, "version")
	if err := r.writeVersion(version, examples); err != nil {
		return err
	}
	if err := r.writeSuites(filepath.Join(out, "suites"), n); err != nil {
		return err
	}
	return writeConfig(out, []string{version})
}

// writeLines creates path and writes it through a buffer; write's error,
// or the buffer's or the file's, is the path's.
func writeLines(path string, write func(*bufio.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
