package harness

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/routebench/routebench/router/registry"
	"github.com/routebench/routebench/workflow"
)

// LoadWorkflows loads a version's workflows.yaml (kept raw on the Version)
// against the version's own skills. A version without the file has an
// empty set. The error is a *registry.LoadError with file:line problems.
func LoadWorkflows(v *registry.Version) (*workflow.Set, error) {
	if v == nil || v.Registry == nil {
		return nil, fmt.Errorf("load workflows: version has no registry")
	}
	if v.WorkflowsRaw == nil {
		return &workflow.Set{}, nil
	}
	return workflow.Parse(workflowsFile(v), v.WorkflowsRaw, v.Registry)
}

// workflowsFile is the name problems show: the version's directory joined
// with workflows.yaml, as the loader shows its other files.
func workflowsFile(v *registry.Version) string {
	if strings.HasPrefix(v.Dir, "git:") {
		return v.Dir + "/" + registry.WorkflowsFile
	}
	return filepath.Join(v.Dir, registry.WorkflowsFile)
}

// RoutingRegistry is reg with every workflow added as a skill (its AsSkill
// view), after the skills: what the router chooses among, and what case
// expectations may name. The engine keeps reg itself, where a workflow
// is not a tool.
func RoutingRegistry(reg *registry.Registry, set *workflow.Set) (*registry.Registry, error) {
	if set == nil || len(set.Workflows) == 0 {
		return reg, nil
	}
	skills := append([]*registry.Skill(nil), reg.Skills...)
	for _, w := range set.Workflows {
		skills = append(skills, w.AsSkill())
	}
	return registry.New(skills)
}

// RoutingVersion is v with its workflows routable beside its skills: a
// shallow copy whose Registry is RoutingRegistry. Its ID is v's, so
// decisions and results name the same version. v itself is returned when
// it has no workflows.
func RoutingVersion(v *registry.Version) (*registry.Version, error) {
	vw, err := PrepareWorkflows(v)
	if err != nil {
		return nil, err
	}
	return vw.RoutingVersion(v), nil
}

// RoutingVersion is v, the version vw was prepared from, with vw.Routing
// as its registry, as the function RoutingVersion gives it but without
// loading the workflows again.
func (vw *VersionWorkflows) RoutingVersion(v *registry.Version) *registry.Version {
	if vw.Routing == v.Registry {
		return v
	}
	rv := *v
	rv.Registry = vw.Routing
	return &rv
}

// RoutingRegistries are the versions' routing registries, for LoadSuites:
// a case may expect a workflow wherever it may expect a skill.
func RoutingRegistries(vs []*registry.Version) ([]*registry.Registry, error) {
	out := make([]*registry.Registry, len(vs))
	for i, v := range vs {
		rv, err := RoutingVersion(v)
		if err != nil {
			return nil, err
		}
		out[i] = rv.Registry
	}
	return out, nil
}
