package fastyaml

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// diff describes the first difference between a tree Parse gave and
// yaml.v3's, "" when they agree on every field but the comments. Aliases
// must point at the node in the same place.
func diff(fast, want *yaml.Node) string {
	return (&differ{seen: map[*yaml.Node]*yaml.Node{}}).diff(fast, want, "doc")
}

type differ struct {
	seen map[*yaml.Node]*yaml.Node // fast node -> yaml.v3's, in document order
}

func (d *differ) diff(a, b *yaml.Node, path string) string {
	if a == nil || b == nil {
		if a != b {
			return fmt.Sprintf("%s: node %v, want %v", path, a, b)
		}
		return ""
	}
	d.seen[a] = b
	switch {
	case a.Kind != b.Kind:
		return fmt.Sprintf("%s: kind %v, want %v", path, a.Kind, b.Kind)
	case a.Style != b.Style:
		return fmt.Sprintf("%s: style %v, want %v", path, a.Style, b.Style)
	case a.Tag != b.Tag:
		return fmt.Sprintf("%s: tag %q, want %q", path, a.Tag, b.Tag)
	case a.Value != b.Value:
		return fmt.Sprintf("%s: value %q, want %q", path, a.Value, b.Value)
	case a.Anchor != b.Anchor:
		return fmt.Sprintf("%s: anchor %q, want %q", path, a.Anchor, b.Anchor)
	case a.Line != b.Line || a.Column != b.Column:
		return fmt.Sprintf("%s (%q): at %d:%d, want %d:%d", path, a.Value, a.Line, a.Column, b.Line, b.Column)
	case (a.Alias == nil) != (b.Alias == nil):
		return fmt.Sprintf("%s: alias %v, want %v", path, a.Alias, b.Alias)
	case a.Alias != nil && d.seen[a.Alias] != b.Alias:
		return fmt.Sprintf("%s: alias to another node", path)
	case (a.Content == nil) != (b.Content == nil) || len(a.Content) != len(b.Content):
		return fmt.Sprintf("%s: %d children (nil %v), want %d (nil %v)", path, len(a.Content), a.Content == nil, len(b.Content), b.Content == nil)
	}
	for i := range a.Content {
		if s := d.diff(a.Content[i], b.Content[i], fmt.Sprintf("%s[%d]", path, i)); s != "" {
			return s
		}
	}
	return ""
}

// check parses in with both parsers: "" when Parse declines or agrees
// with yaml.v3, else what is wrong. accepted says whether Parse took it.
func check(in []byte) (problem string, accepted bool) {
	fast, ok := Parse(in)
	if !ok {
		return "", false
	}
	var want yaml.Node
	if err := yaml.Unmarshal(in, &want); err != nil {
		return fmt.Sprintf("Parse took what yaml.v3 refuses (%v)", err), true
	}
	return diff(fast, &want), true
}
