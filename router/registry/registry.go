package registry

// New builds a registry from compiled skills, keeping their order. Names
// must be non-empty and unique; the error is a *LoadError naming each clash.
func New(skills []*Skill) (*Registry, error) {
	ps := &problems{}
	r := &Registry{Skills: make([]*Skill, 0, len(skills)), byName: make(map[string]*Skill, len(skills))}
	for i, s := range skills {
		if s == nil || s.Name == "" {
			pos := Pos{File: "registry"}
			if s != nil && s.Pos.File != "" {
				pos = s.Pos
			}
			ps.add(pos, index("skills", i), "has no name; every skill needs a unique name")
			continue
		}
		if prev, dup := r.byName[s.Name]; dup {
			ps.add(s.Pos, index("skills", i)+".name", "duplicate skill name %q (also at %s); skill names must be unique", s.Name, prev.Pos)
			continue
		}
		r.byName[s.Name] = s
		r.Skills = append(r.Skills, s)
		r.sensitive = r.sensitive || len(s.Sensitive()) > 0
	}
	if err := ps.err(); err != nil {
		return nil, err
	}
	return r, nil
}

// Names lists the skill names in registry order.
func (r *Registry) Names() []string {
	out := make([]string, len(r.Skills))
	for i, s := range r.Skills {
		out[i] = s.Name
	}
	return out
}
