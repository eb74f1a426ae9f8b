package registry

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"cel.dev/cel-go/cel"
	celast "cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/operators"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/interpreter"
)

// The CEL environment is the same for every rule, and building it costs far
// more than compiling one expression, so it is built once.
var (
	celEnvOnce sync.Once
	celEnv     *cel.Env
	celEnvErr  error
)

// celNames are the identifiers a rule may use, for "did you mean" hints.
var celNames = []string{"params", "now", "date", "days_between"}

func ruleEnv() (*cel.Env, error) {
	celEnvOnce.Do(func() {
		celEnv, celEnvErr = cel.NewEnv(
			cel.Variable("params", cel.MapType(cel.StringType, cel.DynType)),
			cel.Variable("now", cel.TimestampType),
			// Params decoded from JSON are doubles; rules compare them to int literals.
			cel.CrossTypeNumericComparisons(true),
			cel.Function("date",
				cel.Overload("date_string", []*cel.Type{cel.StringType}, cel.TimestampType,
					cel.UnaryBinding(celDate))),
			cel.Function("days_between",
				cel.Overload("days_between_string_string", []*cel.Type{cel.StringType, cel.StringType}, cel.IntType,
					cel.BinaryBinding(celDaysBetween)),
				cel.Overload("days_between_string_timestamp", []*cel.Type{cel.StringType, cel.TimestampType}, cel.IntType,
					cel.BinaryBinding(celDaysBetween)),
				cel.Overload("days_between_timestamp_string", []*cel.Type{cel.TimestampType, cel.StringType}, cel.IntType,
					cel.BinaryBinding(celDaysBetween)),
				cel.Overload("days_between_timestamp_timestamp", []*cel.Type{cel.TimestampType, cel.TimestampType}, cel.IntType,
					cel.BinaryBinding(celDaysBetween))),
		)
	})
	return celEnv, celEnvErr
}

const dateLayout = "2006-01-02"

// celDate parses YYYY-MM-DD as midnight UTC.
func celDate(v ref.Val) ref.Val {
	s, ok := v.(types.String)
	if !ok {
		return types.NewErr("date: want a YYYY-MM-DD string, got %s", v.Type().TypeName())
	}
	t, err := time.Parse(dateLayout, string(s))
	if err != nil {
		return types.NewErr("date: %q is not a YYYY-MM-DD date", string(s))
	}
	return types.Timestamp{Time: t}
}

// calendarDay numbers the calendar day of a date string or a timestamp. A
// timestamp counts as its date in its own time zone, so "now" in +08:00 and
// a date written by the user agree on what "today" is.
func calendarDay(v ref.Val) (int64, ref.Val) {
	var t time.Time
	switch x := v.(type) {
	case types.String:
		p, err := time.Parse(dateLayout, string(x))
		if err != nil {
			return 0, types.NewErr("days_between: %q is not a YYYY-MM-DD date", string(x))
		}
		t = p
	case types.Timestamp:
		y, m, d := x.Time.Date()
		t = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	default:
		return 0, types.NewErr("days_between: want a date string or timestamp, got %s", v.Type().TypeName())
	}
	return t.Unix() / 86400, nil
}

// celDaysBetween is b - a in whole calendar days.
func celDaysBetween(a, b ref.Val) ref.Val {
	da, errVal := calendarDay(a)
	if errVal != nil {
		return errVal
	}
	db, errVal := calendarDay(b)
	if errVal != nil {
		return errVal
	}
	return types.Int(db - da)
}

// ruleCostLimit bounds one evaluation of a rule in CEL cost units (about
// one per operation). Nested comprehensions over a list param grow as its
// length to the power of the nesting, so without a bound one rule could
// hang the loader on an example or the router on a model's params; real
// rules cost tens to thousands.
const ruleCostLimit = 1_000_000

// ruleCompileError is a CEL compile problem with its place inside the expression.
type ruleCompileError struct {
	line, column int // 1-based within the expression; 0 when unknown
	msg          string
}

var undeclared = regexp.MustCompile(`undeclared reference to '([^']+)'`)

// NewRule compiles a business rule. It is what the loader uses for every
// `rules:` entry, exported for registries built in code.
func NewRule(expr, message string) (*Rule, error) {
	r, errs := compileRule(expr, message)
	if len(errs) > 0 {
		return nil, joinCompileErrors("rule", expr, errs)
	}
	return r, nil
}

// joinCompileErrors is the one error the exported constructors return for
// an expression that does not compile: what it is, the expression, and each
// problem, separated by "; ".
func joinCompileErrors(what, expr string, errs []ruleCompileError) error {
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.msg
	}
	return fmt.Errorf("%s %q: %s", what, expr, strings.Join(msgs, "; "))
}

// celCompileErrors turns CEL's issues into located problems, with a hint
// for a misspelt or unknown name.
func celCompileErrors(issues []*cel.Error) []ruleCompileError {
	var errs []ruleCompileError
	for _, e := range issues {
		msg := strings.TrimSuffix(e.Message, " (in container '')")
		if m := undeclared.FindStringSubmatch(msg); m != nil && !strings.Contains(msg, "did you mean") {
			if s := suggest(m[1], celNames); s != "" {
				msg += " (did you mean " + s + "?)"
			} else {
				msg += " (a rule sees only params, now, date() and days_between())"
			}
		}
		ce := ruleCompileError{msg: "does not compile: " + msg + "; fix the CEL expression"}
		if e.Location != nil {
			ce.line, ce.column = e.Location.Line(), e.Location.Column()+1
		}
		errs = append(errs, ce)
	}
	return errs
}

func compileRule(expr, message string) (*Rule, []ruleCompileError) {
	env, err := ruleEnv()
	if err != nil {
		return nil, []ruleCompileError{{msg: "cel environment: " + err.Error()}}
	}
	ast, iss := env.Compile(expr)
	if iss != nil && iss.Err() != nil {
		return nil, celCompileErrors(iss.Errors())
	}
	if !ast.OutputType().IsExactType(types.BoolType) {
		return nil, []ruleCompileError{{msg: fmt.Sprintf(
			"is of type %s, not bool; a rule must be a condition, e.g. compare the value (params.x == true, params.n > 0)",
			ast.OutputType())}}
	}
	prg, err := env.Program(ast, cel.EvalOptions(cel.OptOptimize), cel.CostLimit(ruleCostLimit))
	if err != nil {
		return nil, []ruleCompileError{{msg: "does not compile: " + err.Error() + "; fix the CEL expression"}}
	}
	reads, readsNow := ruleReads(ast.NativeRep())
	if message == "" {
		message = "must satisfy " + expr
	}
	r := &Rule{Expr: expr, Message: message, Reads: reads, readsNow: readsNow}
	r.eval = func(params map[string]any, now time.Time) (bool, error) {
		out, _, err := prg.Eval(&ruleActivation{params: normalizeParams(params), now: now})
		if err != nil {
			if strings.Contains(err.Error(), "cost limit exceeded") {
				return false, fmt.Errorf("rule %q: stopped after %d operations (%w); nested loops over a list param grow fast: check one element at a time",
					expr, ruleCostLimit, err)
			}
			return false, fmt.Errorf("rule %q: %w", expr, err)
		}
		b, ok := out.Value().(bool)
		if !ok {
			return false, fmt.Errorf("rule %q: evaluated to %v, not a boolean", expr, out.Value())
		}
		return b, nil
	}
	return r, nil
}

// ruleReads lists the top-level params an expression needs (params.x and
// params["x"]) and whether it reads now. has(params.x) is a presence test, not
// a read, so a rule guarded by has() still runs when x is absent.
func ruleReads(a *celast.AST) ([]string, bool) {
	set := map[string]bool{}
	readsNow := false
	isParams := func(e celast.Expr) bool {
		return e.Kind() == celast.IdentKind && e.AsIdent() == "params"
	}
	celast.PreOrderVisit(a.Expr(), celast.NewExprVisitor(func(e celast.Expr) {
		switch e.Kind() {
		case celast.IdentKind:
			if e.AsIdent() == "now" {
				readsNow = true
			}
		case celast.SelectKind:
			sel := e.AsSelect()
			if isParams(sel.Operand()) && !sel.IsTestOnly() {
				set[sel.FieldName()] = true
			}
		case celast.CallKind:
			call := e.AsCall()
			fn := call.FunctionName()
			if (fn == operators.Index || fn == operators.OptIndex) && len(call.Args()) == 2 && isParams(call.Args()[0]) {
				if key := call.Args()[1]; key.Kind() == celast.LiteralKind {
					if s, ok := key.AsLiteral().(types.String); ok {
						set[string(s)] = true
					}
				}
			}
		}
	}))
	reads := make([]string, 0, len(set))
	for k := range set {
		reads = append(reads, k)
	}
	sort.Strings(reads)
	return reads, readsNow
}

// ruleActivation hands params and now to CEL without building a map per call.
type ruleActivation struct {
	params map[string]any
	now    time.Time
}

func (a *ruleActivation) ResolveName(name string) (any, bool) {
	switch name {
	case "params":
		return a.params, true
	case "now":
		return a.now, true
	}
	return nil, false
}

func (a *ruleActivation) Parent() interpreter.Activation { return nil }

// normalizeParams turns json.Number (from decoders using UseNumber) into
// float64, which CEL understands; params without one are passed through as is.
func normalizeParams(params map[string]any) map[string]any {
	if params == nil {
		return map[string]any{}
	}
	for _, v := range params {
		if hasNumber(v) {
			out := make(map[string]any, len(params))
			for k, v := range params {
				out[k] = normalizeValue(v)
			}
			return out
		}
	}
	return params
}

func hasNumber(v any) bool {
	switch x := v.(type) {
	case json.Number:
		return true
	case map[string]any:
		for _, e := range x {
			if hasNumber(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasNumber(e) {
				return true
			}
		}
	}
	return false
}

func normalizeValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return x.String()
		}
		return f
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalizeValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeValue(e)
		}
		return out
	}
	return v
}
