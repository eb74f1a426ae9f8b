package lint

import (
	"go.yaml.in/yaml/v3"
)

// rawSkill is what skills.yaml says about one skill as written, before the
// loader fills defaults: which fields are present and on which lines.
type rawSkill struct {
	// keys maps each written field to the line of its key.
	keys map[string]int
	// counterLines are the lines of the counter_examples items, in order.
	counterLines []int
}

// has reports whether the field was written.
func (r rawSkill) has(field string) bool {
	_, ok := r.keys[field]
	return ok
}

// rawRegistry maps skill names to what was written for them; the first
// entry wins, as in the loader.
type rawRegistry map[string]rawSkill

// parseRaw reads skills.yaml at the node level. A file the loader accepted
// parses here too; anything unexpected yields an empty registry, and the
// checks that need it then fall back to the loaded values.
func parseRaw(data []byte) rawRegistry {
	out := rawRegistry{}
	if len(data) == 0 {
		return out
	}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return out
	}
	list := deref(doc.Content[0])
	if list.Kind == yaml.MappingNode {
		list = valueOf(list, "skills")
	}
	if list == nil || list.Kind != yaml.SequenceNode {
		return out
	}
	for _, item := range list.Content {
		item = deref(item)
		if item.Kind != yaml.MappingNode {
			continue
		}
		rs := rawSkill{keys: map[string]int{}}
		name := ""
		for i := 0; i+1 < len(item.Content); i += 2 {
			k, v := item.Content[i], deref(item.Content[i+1])
			if _, dup := rs.keys[k.Value]; dup {
				continue
			}
			rs.keys[k.Value] = k.Line
			switch k.Value {
			case "name":
				name = v.Value
			case "counter_examples":
				if v.Kind == yaml.SequenceNode {
					for _, c := range v.Content {
						rs.counterLines = append(rs.counterLines, c.Line)
					}
				}
			}
		}
		if _, seen := out[name]; name != "" && !seen {
			out[name] = rs
		}
	}
	return out
}

func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// valueOf returns the value of key in mapping m, or nil.
func valueOf(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return deref(m.Content[i+1])
		}
	}
	return nil
}
