package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

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
	// Gate is the raw `gate:` block, nil when absent. Package gate parses
	// and validates it; this loader only checks it is a mapping.
	Gate *yaml.Node
}

var configFields = []string{"versions", "suites", "gate"}

// LoadConfig reads routebench.yaml. Unknown top-level keys and malformed
// lists are errors naming file and line (a *registry.LoadError).
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return ParseConfig(path, data)
}

// ParseConfig is LoadConfig over bytes already read.
func ParseConfig(path string, data []byte) (*Config, error) {
	l := &suiteLoader{}
	y := &ynode{file: path, l: l}
	cfg := &Config{Path: path}
	root, problem := parseYAML(path, data)
	if problem != nil {
		l.problems = append(l.problems, *problem)
	}
	if root != nil && root.Kind != yaml.MappingNode {
		y.problem(root, "", "must be a mapping with versions, suites and gate; got %s", yamlkind.Of(root))
		root = nil
	}
	if root != nil {
		base := filepath.Dir(path)
		y.fields(root, "", configFields, func(key string, v *yaml.Node) {
			switch key {
			case "versions":
				cfg.Versions = resolvePaths(base, y.strList(v, "versions"))
			case "suites":
				cfg.Suites = resolvePaths(base, y.strList(v, "suites"))
			case "gate":
				if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
					return // an empty gate block gates nothing
				}
				if v.Kind != yaml.MappingNode {
					y.problem(v, "gate", "must be a mapping with thresholds and regression, got %s", yamlkind.Of(v))
					return
				}
				cfg.Gate = v
			}
		})
	}
	if len(l.problems) > 0 {
		sortProblems(l.problems)
		return nil, &registry.LoadError{Problems: l.problems}
	}
	return cfg, nil
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
