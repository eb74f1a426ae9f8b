package registry

import (
	"fmt"
	"math"
	"strings"
	"time"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"go.yaml.in/yaml/v3"
)

// Affects is a skill's `x-affects`: a CEL expression over `params` and
// `now` giving how many items one call touches (DESIGN §2), such as
// size(params.ids) or params.count. The router compares it with the batch
// threshold; a skill without one counts its largest list param.
type Affects struct {
	Expr string
	Pos  Pos
	eval func(params map[string]any, now time.Time) (int, error)
}

// Count evaluates the expression. An error (a param of the wrong type, a
// result that is not a whole number >= 0) means the count is unknown.
// It is safe for concurrent use.
func (a *Affects) Count(params map[string]any, now time.Time) (int, error) {
	if a == nil || a.eval == nil {
		return 0, fmt.Errorf("x-affects was not compiled; build it with NewAffects or the loader")
	}
	return a.eval(params, now)
}

// NewAffects compiles an x-affects expression with the rules' CEL
// environment, exported for registries built in code.
func NewAffects(expr string) (*Affects, error) {
	a, errs := compileAffects(expr)
	if len(errs) > 0 {
		return nil, joinCompileErrors("x-affects", expr, errs)
	}
	return a, nil
}

// compileAffects accepts an expression whose type is int, uint or dyn:
// params is a map of dyn, so params.count is only known to be a number
// when the call is made, and is checked then.
func compileAffects(expr string) (*Affects, []ruleCompileError) {
	env, err := ruleEnv()
	if err != nil {
		return nil, []ruleCompileError{{msg: "cel environment: " + err.Error()}}
	}
	ast, iss := env.Compile(expr)
	if iss != nil && iss.Err() != nil {
		return nil, celCompileErrors(iss.Errors())
	}
	out := ast.OutputType()
	if !out.IsExactType(types.IntType) && !out.IsExactType(types.UintType) && !out.IsExactType(types.DynType) {
		hint := "x-affects must count items, e.g. size(params.ids) or int(params.count)"
		if out.IsExactType(types.DoubleType) {
			hint = "wrap it in int(...) to count whole items"
		}
		return nil, []ruleCompileError{{msg: fmt.Sprintf("is of type %s, not int; %s", out, hint)}}
	}
	prg, err := env.Program(ast, cel.EvalOptions(cel.OptOptimize), cel.CostLimit(ruleCostLimit))
	if err != nil {
		return nil, []ruleCompileError{{msg: "does not compile: " + err.Error() + "; fix the CEL expression"}}
	}
	a := &Affects{Expr: expr}
	a.eval = func(params map[string]any, now time.Time) (int, error) {
		val, _, err := prg.Eval(&ruleActivation{params: normalizeParams(params), now: now})
		if err != nil {
			return 0, fmt.Errorf("x-affects %q: %w", expr, err)
		}
		var n float64
		switch v := val.Value().(type) {
		case int64:
			n = float64(v)
		case uint64:
			n = float64(v)
		case float64:
			n = v
		default:
			return 0, fmt.Errorf("x-affects %q: evaluated to %v (%s), not a count", expr, val.Value(), val.Type().TypeName())
		}
		if n < 0 || n != math.Trunc(n) || n > math.MaxInt32 {
			return 0, fmt.Errorf("x-affects %q: evaluated to %v, not a whole number of items >= 0", expr, n)
		}
		return int(n), nil
	}
	return a, nil
}

// affects parses a skill's x-affects: a string holding one CEL expression.
// Params it reads must be defined in params_schema when that lists them.
func (f *yfile) affects(n *yaml.Node, field string, s *Skill) *Affects {
	expr, ok := f.str(n, field)
	if !ok {
		return nil
	}
	if strings.TrimSpace(expr) == "" {
		f.problem(n, field, "is empty; write a CEL count over params, e.g. size(params.ids), or remove x-affects")
		return nil
	}
	a, errs := compileAffects(expr)
	f.exprProblems(n, field, errs)
	if a == nil {
		return nil
	}
	a.Pos = f.pos(n)
	if props, ok := s.ParamsSchema["properties"].(map[string]any); ok && len(props) > 0 {
		defined := make([]string, 0, len(props))
		for name := range props {
			defined = append(defined, name)
		}
		env, _ := ruleEnv()
		ast, _ := env.Compile(expr)
		reads, _ := ruleReads(ast.NativeRep())
		for _, r := range reads {
			if _, ok := props[r]; ok {
				continue
			}
			hint := "count a param params_schema.properties defines"
			if sug := suggest(r, defined); sug != "" {
				hint = "did you mean params." + sug + "? " + hint
			}
			f.problem(n, field, "reads params.%s, which params_schema.properties does not define; %s", r, hint)
		}
	}
	return a
}
