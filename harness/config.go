package harness

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/routebench/routebench/internal/inputfile"
	"github.com/routebench/routebench/internal/yamlkind"
	"github.com/routebench/routebench/router/registry"
)

// DefaultConfigFile is read when no --config is given.
const DefaultConfigFile = "routebench.yaml"

// Config is routebench.yaml (DESIGN §7).
type Config struct {
	// Path is the file it was read from.
	Path string
	// Versions and Suites are as written, with relative directories made
	// relative to the config file's directory; "git:" references are kept.
	Versions []string
	Suites   []string
	// Gate is the `gate:` block, parsed and validated whenever the config
	// loads, so run and lint reject a bad threshold as gate does. Its
	// versions are resolved like Versions. Zero when absent: nothing is gated.
	Gate GateConfig
}

var configFields = []string{"versions", "suites", "gate"}

// LoadConfig reads routebench.yaml: a regular file of at most
// inputfile.DefaultLimit bytes holding one YAML document. A file that
// cannot be read is an error wrapping the cause (os.ErrNotExist for a
// missing one); every problem in it, gate block included, comes back
// together as a *registry.LoadError naming file and line.
func LoadConfig(path string) (*Config, error) {
	data, err := inputfile.ReadFile(path, inputfile.DefaultLimit)
	if err != nil {
		// "read config" is what commands and their tests know this error by.
		return nil, fmt.Errorf("read config: %s: %w", path, readCause(err))
	}
	return ParseConfig(path, data)
}

// ParseConfig is LoadConfig over bytes already read.
func ParseConfig(path string, data []byte) (*Config, error) {
	l := &suiteLoader{}
	y := &ynode{file: path, l: l}
	cfg := &Config{Path: path}
	root, problem := parseYAML(path, data, "list versions and suites (DESIGN §7)")
	if problem != nil {
		l.problems = append(l.problems, *problem)
	}
	if root != nil && root.Kind != yaml.MappingNode {
		y.problem(root, "", "must be a mapping with versions, suites and gate; got %s", yamlkind.Of(root))
		root = nil
	}
	var gateNode *yaml.Node
	if root != nil {
		base := filepath.Dir(path)
		y.fields(root, "", configFields, func(key string, v *yaml.Node) {
			switch key {
			case "versions":
				cfg.Versions = resolvePaths(base, y.strList(v, "versions"))
			case "suites":
				cfg.Suites = resolvePaths(base, y.strList(v, "suites"))
			case "gate":
				gateNode = v
			}
		})
	}
	if gateNode != nil {
		// After the loop: gate.versions are checked against versions,
		// which may come later in the file.
		cfg.Gate = cfg.gate(gateNode, l)
	}
	if len(l.problems) > 0 {
		sortProblems(l.problems)
		return nil, &registry.LoadError{Problems: l.problems}
	}
	return cfg, nil
}

// gate parses the gate block and resolves its versions like the config's
// own, which each must be; problems go to l.
func (c *Config) gate(n *yaml.Node, l *suiteLoader) GateConfig {
	p := &gateParser{file: c.Path}
	g := p.gate(n)
	for i, v := range p.versions {
		g.Versions[i] = c.Resolve(v.node.Value)
		if !slices.Contains(c.Versions, g.Versions[i]) {
			p.add(v.node, fmt.Sprintf("gate.versions[%d]", v.index), "%q is not one of the config's versions (%s); list a directory from `versions:`", v.node.Value, strings.Join(c.Versions, ", "))
		}
	}
	l.problems = append(l.problems, p.problems...)
	return g
}

// resolvePaths makes relative directories relative to base, so a config
// works from any working directory.
func resolvePaths(base string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		if strings.HasPrefix(p, "git:") || filepath.IsAbs(p) {
			out[i] = p
			continue
		}
		out[i] = filepath.Join(base, p)
	}
	return out
}

// Resolve makes a path written in the config relative to the config's
// directory, as versions and suites are.
func (c *Config) Resolve(p string) string {
	return resolvePaths(filepath.Dir(c.Path), []string{p})[0]
}
