// Package yamlkind names what a YAML node holds, for the "must be X, got Y"
// messages of every loader, so they read the same everywhere.
package yamlkind

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Of describes what n holds: "a mapping", "a list", "a number (3)",
// "the string \"x\"".
func Of(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	switch n.ShortTag() {
	case "!!null":
		return "nothing (null)"
	case "!!int", "!!float":
		return "a number (" + n.Value + ")"
	case "!!bool":
		return "a boolean (" + n.Value + ")"
	}
	return fmt.Sprintf("the string %q", n.Value)
}
