// Command gencases writes a large synthetic suite set for load tests: the
// seed suites' cases (suites/ops by default) replicated with neutral
// politeness prefixes until there are -n cases, keeping the seeds' suite mix,
// plus a routebench.yaml that runs them against the demo versions.
//
//	go run ./harness/cmd/gencases -n 10000 -out /tmp/cases
//	go run ./harness/cmd/gencases -n 1000000 -versions fixtures/ops/prompts/v2 -out /tmp/cases
//	go run ./harness/cmd/gencases -n 10000 -skills 1000 -out /tmp/cases  # a made-up 1,000-skill registry
//	routebench run --config /tmp/cases/routebench.yaml --out /tmp/cases/out
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// prefixes vary the text without changing what it asks for.
var prefixes = []string{"", "请问，", "麻烦", "hi, ", "please ", "quick one: ", "帮忙看下：", "hey team, "}

func main() {
	n := flag.Int("n", 10000, "number of cases to write")
	out := flag.String("out", "", "output directory (required)")
	seeds := flag.String("seeds", "suites/ops", "directory of seed suite files")
	versions := flag.String("versions", "fixtures/ops/prompts/v1,fixtures/ops/prompts/v2,fixtures/ops/prompts/v3", "versions for the generated routebench.yaml")
	skills := flag.Int("skills", 0, "instead of the seeds and versions: a made-up registry of this many skills (DIR/version) and cases for it")
	examples := flag.Int("examples", 10, "example inputs per made-up skill (with -skills)")
	flag.Parse()
	if *out == "" || *n <= 0 || *skills < 0 || *examples < 0 {
		fmt.Fprintln(os.Stderr, "gencases: want -n N (> 0) and -out DIR; -skills and -examples are not negative")
		os.Exit(2)
	}
	var err error
	if *skills > 0 {
		err = generateRegistry(*n, *skills, *examples, *out)
	} else {
		err = generate(*n, *seeds, *out, splitList(*versions))
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gencases: %v\n", err)
		os.Exit(1)
	}
}

// seedFile is one parsed seed suite.
type seedFile struct {
	name  string
	root  *yaml.Node // document mapping
	cases []*yaml.Node
}

func generate(n int, seedDir, out string, versions []string) error {
	files, err := filepath.Glob(filepath.Join(seedDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no seed suites in %s", seedDir)
	}
	sort.Strings(files)
	var seeds []seedFile
	total := 0
	for _, f := range files {
		s, err := readSeed(f)
		if err != nil {
			return err
		}
		seeds = append(seeds, s)
		total += len(s.cases)
	}
	if err := os.MkdirAll(filepath.Join(out, "suites"), 0o755); err != nil {
		return err
	}
	written := 0
	for i, s := range seeds {
		// Each file gets its share of n, so the mix stays the seeds' mix.
		want := n * len(s.cases) / total
		if i == len(seeds)-1 {
			want = n - written
		}
		if err := writeCopies(s, want, filepath.Join(out, "suites", s.name)); err != nil {
			return err
		}
		written += want
	}
	return writeConfig(out, versions)
}

func readSeed(path string) (seedFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return seedFile{}, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return seedFile{}, fmt.Errorf("%s: %w", path, err)
	}
	root := doc.Content[0]
	s := seedFile{name: filepath.Base(path), root: root}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "cases" {
			s.cases = root.Content[i+1].Content
		}
	}
	if len(s.cases) == 0 {
		return s, fmt.Errorf("%s: no cases", path)
	}
	return s, nil
}

// fileCases is the most cases one generated file holds, so a file stays
// well under the 64 MiB a suite file may have (a streamed run holds the
// bytes of the file it is routing): a seed's copies beyond it go to
// further files (name-1.yaml, name-2.yaml, ...), which sort together and
// in order.
const fileCases = 50_000

// writeCopies writes want cases cycling through the seed's cases; copy k
// of a case gets id "<id>-k<k>" and the k-th prefix.
func writeCopies(s seedFile, want int, path string) error {
	if want <= fileCases {
		return writeFile(s, 0, want, path)
	}
	base := strings.TrimSuffix(path, ".yaml")
	for part, from := 1, 0; from < want; part, from = part+1, from+fileCases {
		if err := writeFile(s, from, min(want, from+fileCases), fmt.Sprintf("%s-%d.yaml", base, part)); err != nil {
			return err
		}
	}
	return nil
}

// writeFile writes copies from..to-1 of the seed's cases as one suite
// file, a case at a time (a tree of a million cases is gigabytes): the
// seed's other keys, then `cases:` and each case encoded on its own and
// indented under it, which is what encoding the whole tree writes.
func writeFile(s seedFile, from, to int, path string) error {
	doc := &yaml.Node{Kind: yaml.MappingNode, Style: s.root.Style, HeadComment: s.root.HeadComment}
	for i := 0; i+1 < len(s.root.Content); i += 2 {
		if s.root.Content[i].Value != "cases" {
			doc.Content = append(doc.Content, s.root.Content[i], s.root.Content[i+1])
		}
	}
	return writeLines(path, func(w *bufio.Writer) error {
		frame, err := encode(doc)
		if err != nil {
			return err
		}
		w.Write(frame)
		w.WriteString("cases:\n")
		for j := from; j < to; j++ {
			seed := s.cases[j%len(s.cases)]
			item, err := encode(&yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{variant(seed, j/len(s.cases))}})
			if err != nil {
				return err
			}
			for line := range bytes.Lines(item) {
				if len(bytes.TrimSpace(line)) > 0 {
					w.WriteString("  ")
				}
				w.Write(line)
			}
		}
		return nil
	})
}

// encode is a node as YAML with the suites' two-space indent.
func encode(n *yaml.Node) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// variant is copy k of a seed case: same expectation, new id, prefixed input.
func variant(seed *yaml.Node, k int) *yaml.Node {
	c := &yaml.Node{Kind: yaml.MappingNode, Style: seed.Style}
	for i := 0; i+1 < len(seed.Content); i += 2 {
		key, val := seed.Content[i], seed.Content[i+1]
		switch key.Value {
		case "id":
			val = &yaml.Node{Kind: yaml.ScalarNode, Value: fmt.Sprintf("%s-k%d", val.Value, k)}
		case "input":
			text := val.Value
			if text != "" && k > 0 {
				text = prefixes[k%len(prefixes)] + text
			}
			val = &yaml.Node{Kind: yaml.ScalarNode, Value: text, Style: yaml.DoubleQuotedStyle}
		}
		c.Content = append(c.Content, key, val)
	}
	return c
}

func writeConfig(out string, versions []string) error {
	abs := make([]string, len(versions))
	for i, v := range versions {
		a, err := filepath.Abs(v)
		if err != nil {
			return err
		}
		abs[i] = a
	}
	cfg := map[string]any{"versions": abs, "suites": []string{"suites"}}
	data, err := yaml.Marshal(cfg)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "routebench.yaml"), data, 0o644)
}

func splitList(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}
