// Package workflow is the multi-step engine of DESIGN §11: a task that spans
// several skills is a DAG of nodes, executed as a state machine with
// checkpoints, and the code, not the prompt, holds every guard. It uses
// router/registry and never the harness.
//
// # Loading
//
// LoadDir(dir, reg) reads a prompt version's optional workflows.yaml (a
// missing file is an empty Set); Parse(file, data, reg) and ParseNode do the
// same for bytes or an already parsed node. Every problem is reported at
// once as a *registry.LoadError, one "file:line: field.path: what; what to
// do" per problem: unknown fields (with did-you-mean), duplicate workflow or
// node ids, unknown skills and params, {{references}} to unknown nodes,
// params or outputs (outputs are known from a skill's result_schema), reads
// past the context budget (items[3] and on), cycles (named a → b → a),
// decisions whose `on` is not one reference or whose cases are not a finite
// mapping of literal values, after/case/aggregate targets that do not exist,
// confirm timeouts that are not a duration in (0, 24h], side-effect nodes
// without a total order among themselves, and side-effect nodes not ordered
// (through after, or their deciding node) after every node they read.
//
// A Workflow is routable like a skill: AsSkill gives the registry.Skill view
// (side effect the strongest of its nodes, gate the strictest, scopes the
// workflow's own plus every node skill's, see Scopes).
//
// # Running
//
//	e := &workflow.Engine{Tools: tools, Registry: reg, Store: store, Clock: clock}
//	out, err := e.Run(ctx, workflow.RunInput{ID: caseID + "@" + version, Workflow: w,
//	        Params: params, Caller: caller, Model: model, Confirmer: confirmer})
//
// Run returns an *Outcome for every run that could be attempted; its error is
// only for a bad RunInput, a cancelled context or a store that cannot save.
// The rules it holds:
//
//   - Order: topological, ties by declaration. Ready read nodes run together
//     (goroutines, at most MaxParallel); write, delete and send nodes, and
//     confirm nodes, run one at a time. Decisions and aggregates only compute.
//   - Params are rendered from {{params.x}} and earlier outputs, then checked
//     against the skill's params_schema, its rules and the caller's scopes
//     (x-permission included) before any call.
//   - Idempotency: every side-effect call carries a key the engine derives
//     from run id, node id and input hash; a retry reuses it. A ledger of
//     executed keys (in the CheckpointStore) blocks a second execution,
//     recorded as a duplicate_blocked event.
//   - Retry: at most once per node, only after a timeout, a 429 (after its
//     Retry-After, waited on the Clock) or a 5xx. A 4xx, params, permission,
//     malformed or unavailable error stops the run at once; the outcome names
//     the node and the tool's code and message verbatim.
//   - Malformed: a result that fails the skill's result_schema (or, without
//     one, is not a JSON object or list) fails with code "malformed".
//   - Empty: a result with no data completes the node and is listed in
//     Report.Empty with skill_used; a later reference into it fails with
//     missing_input rather than guess.
//   - Checkpoints {node, input hash, output ref, time} are saved after each
//     node; a re-run with the same ID and store skips nodes whose input hash
//     has one (Checkpoints.Skipped), restoring their outputs by ref.
//   - Gates: each side-effect node asks the Confirmer (a normal gate may be
//     met by a confirm node it runs directly after). The item count comes
//     from the tool's dry-run Preview, else the largest list param, else 1.
//     Above BatchThreshold (10) the gate is batch and the question carries the
//     count and up to SampleSize (3) items. An irreversible skill acting on
//     more than one item is refused ("must be done one at a time") without
//     asking. Timeout (or any unclear answer) and no refuse; pending, or no
//     Confirmer, suspends the run (awaiting_confirmation). After a yes the
//     revoked scopes are removed and permissions checked again.
//   - Doom loop: the same skill with the same params 3 times within the last
//     3 call requests (plan calls and model calls; a retry is not a new
//     request) stops the run (stopped, reason doom_loop) before the third.
//   - Fail closed: discovery runs first; a node whose skill's source is
//     unavailable fails the run before anything is called. FailClosed narrows
//     a candidate list the same way, for the router.
//   - Context budget: later steps see an output's summary (count, first 3
//     items, ref, skill_used, its scalar fields); the raw output is kept in
//     the store by ref.
//
// # Models
//
// The Model is consulted before every step and, once the run has an outcome,
// until it answers StepFollow. PlanModel (the default) always follows the
// plan. ScriptModel replays scripted steps, which the engine only ever
// treats as advice:
//
//   - call: a read runs (counted for doom loops, checked for policy,
//     availability and params); a side effect never runs off the plan
//     (call_blocked off_plan_side_effect, or duplicate_blocked for a key
//     already executed); a disabled, out-of-scope or unknown skill is
//     call_blocked.
//   - retry: always refused with why (retry_refused): the engine has already
//     retried what it could.
//   - claim: recorded with Verified checked against receipts and node states;
//     a claim of success without a success receipt is flagged.
//
// # Outcome and guards
//
// An Outcome holds raw facts: calls with attempt, key and start/end sequence
// numbers (two calls overlapped iff each started before the other ended),
// retries per node, receipts, confirmations, checkpoints written and
// skipped, node states for drawing, claims, the report (success only with a
// success receipt) and an event log. Guards recounts every guard from those
// facts alone, so it can also judge an engine other than this one.
//
// # Cases
//
// DecodeToolsSim, DecodeModelScript and DecodeConfirm read a case's
// tools_sim, model_script and confirm nodes with file:line problems:
//
//	tools_sim:
//	  query_alerts_by_zone: [{fault: timeout}, {ok: {items: [{id: A-1, level: critical, service: api}]}}]
//	  create_ticket: [{fault: client_error, code: 409, message: "ticket exists"}]
//	  purge_cdn_cache: [{ok: {purged: 25}, preview: {count: 25, items: [/a, /b, /c]}}]
//	  get_order: [{ok: {...}, when: {order_id: ORD-00000001}}, {fault: rate_limited, retry_after: 2s}]
//	model_script:
//	  - {call: get_service_metrics, params: {service: api, metric: cpu}}
//	  - {retry: ticket}
//	  - {claim: success}            # or {claim: success, node: ticket}
//	  - {follow: plan}
//	confirm: {answer: yes, revoke_scopes: [tickets:write]}   # or a list, answered in order
//
// An answer is {ok: value} or {fault: timeout | rate_limited | server_error |
// client_error | empty | malformed | unavailable} with code (4xx/5xx),
// message, retry_after (seconds or a duration), body (malformed),
// external_id, when (params subset) and preview. Answers are used in order,
// the last repeating; a skill whose first answer is unavailable is missing
// at discovery. SimTools serves such a script and behaves like an idempotent
// server.
package workflow
