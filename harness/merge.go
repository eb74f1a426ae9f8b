package harness

import (
	"errors"
	"fmt"
	"strings"
)

// RunOutput is one shard of a run as merge checks it: how it was named
// on the command line (for messages) and its plan record.
type RunOutput struct {
	Dir  string
	Plan Plan
}

// samePlan checks every run against the first one's plan and says what
// differs: versions (or their fingerprints) or cases.
func samePlan(runs []RunOutput, parts []*planFile) error {
	ref := runs[0]
	var problems []error
	for i, r := range runs[1:] {
		if r.Plan.Hash == ref.Plan.Hash {
			continue
		}
		a, b := planVersionIDs(ref.Plan.Versions), planVersionIDs(r.Plan.Versions)
		fa, fb := fingerprints(ref.Plan.Versions), fingerprints(r.Plan.Versions)
		if strings.Join(a, ",") != strings.Join(b, ",") || fa != fb {
			problems = append(problems, fmt.Errorf("%s ran versions %s but %s ran %s; re-run it with the same --versions (and the same version files)",
				r.Dir, strings.Join(b, ", "), ref.Dir, strings.Join(a, ", ")))
			continue
		}
		var how string
		if ref.Plan.Shard.Count <= 1 && r.Plan.Shard.Count <= 1 {
			// Whole plans both: which cases differ can be said.
			how = caseDifferenceOf(parts[0].path, parts[i+1].path)
		} else {
			// A shard's plan lists only its own cases, and counts all.
			how = fmt.Sprintf("%d cases against %d", planSize(parts[i+1]), planSize(parts[0]))
			if planSize(parts[i+1]) == planSize(parts[0]) {
				how = fmt.Sprintf("as many cases, %d, but other ids, content or versions", planSize(parts[0]))
			}
		}
		problems = append(problems, fmt.Errorf("%s ran other cases than %s (%s); re-run it with the same --suites and --label-filter",
			r.Dir, ref.Dir, how))
	}
	if len(problems) > 0 {
		return fmt.Errorf("merge: the runs are not shards of one run:\n  %w", joinIndented(problems))
	}
	return nil
}

// planSize is how many cases the whole plan of pf's run has.
func planSize(pf *planFile) int {
	if pf.plan.Shard.Count <= 1 {
		return pf.cases
	}
	n := 0
	for _, c := range pf.plan.ShardCases {
		n += c
	}
	return n
}

// caseDifferenceOf is caseDifference of the plans at two paths, both
// read and checked already.
func caseDifferenceOf(a, b string) string {
	pa, err := ReadPlanFile(a)
	if err != nil {
		return err.Error()
	}
	pb, err := ReadPlanFile(b)
	if err != nil {
		return err.Error()
	}
	return caseDifference(pa, pb)
}

func fingerprints(vs []PlanVersion) string {
	var b strings.Builder
	for _, v := range vs {
		b.WriteString(v.Fingerprint + ",")
	}
	return b.String()
}

// caseDifference says which cases one plan has that the other lacks or
// has with other content or versions.
func caseDifference(a, b Plan) string {
	index := func(p Plan) map[string]PlanCase {
		m := make(map[string]PlanCase, len(p.Cases))
		for _, c := range p.Cases {
			m[c.ID] = c
		}
		return m
	}
	ia, ib := index(a), index(b)
	var only, lacks, changed []string
	for _, c := range b.Cases {
		if ca, ok := ia[c.ID]; !ok {
			only = append(only, c.ID)
		} else if ca.Hash != c.Hash || fmt.Sprint(ca.Versions) != fmt.Sprint(c.Versions) {
			changed = append(changed, c.ID)
		}
	}
	for _, c := range a.Cases {
		if _, ok := ib[c.ID]; !ok {
			lacks = append(lacks, c.ID)
		}
	}
	var parts []string
	if len(only) > 0 {
		parts = append(parts, "only it has "+listSome(only))
	}
	if len(lacks) > 0 {
		parts = append(parts, "it lacks "+listSome(lacks))
	}
	if len(changed) > 0 {
		parts = append(parts, "changed content or versions: "+listSome(changed))
	}
	if len(parts) == 0 {
		return "same cases in another order"
	}
	return strings.Join(parts, "; ")
}

// shardCoverage checks that the runs are shards 1..n of one split, each
// exactly once (or a single unsharded run).
func shardCoverage(runs []RunOutput) []error {
	var problems []error
	count := runs[0].Plan.Shard.Count
	for _, r := range runs[1:] {
		if r.Plan.Shard.Count != count {
			return []error{fmt.Errorf("%s is shard %s but %s is shard %s: merge the shards of one --shard i/n split",
				runs[0].Dir, runs[0].Plan.Shard, r.Dir, r.Plan.Shard)}
		}
	}
	if count <= 1 {
		if len(runs) > 1 {
			var dirs []string
			for _, r := range runs {
				dirs = append(dirs, r.Dir)
			}
			problems = append(problems, fmt.Errorf("%s are each a whole run (no --shard), so every result is there %d times; merge joins the shards of one run", strings.Join(dirs, ", "), len(runs)))
		}
		return problems
	}
	byIndex := map[int][]string{}
	for _, r := range runs {
		byIndex[r.Plan.Shard.Index] = append(byIndex[r.Plan.Shard.Index], r.Dir)
	}
	sizes := runs[0].Plan.ShardCases
	for i := 1; i <= count; i++ {
		s := Shard{Index: i, Count: count}
		switch dirs := byIndex[i]; {
		case len(dirs) == 0:
			// Only the shard's own plan lists its cases: the others count them.
			size := "its cases"
			if len(sizes) == count {
				if sizes[i-1] == 0 {
					continue // a shard the filter left empty has nothing to add
				}
				size = fmt.Sprintf("%d cases", sizes[i-1])
			}
			problems = append(problems, fmt.Errorf("shard %s is missing (%s); run it with --shard %s and merge its directory too",
				s, size, s))
		case len(dirs) > 1:
			problems = append(problems, fmt.Errorf("shard %s is given %d times (%s); give each shard once", s, len(dirs), strings.Join(dirs, ", ")))
		}
	}
	return problems
}

// shardProblems says what is wrong with one shard's results.
func shardProblems(run RunOutput, wanted int, missing, dups, foreign, stale []string) []error {
	var problems []error
	label := fmt.Sprintf("%s (shard %s)", run.Dir, run.Plan.Shard)
	if len(missing) > 0 {
		problems = append(problems, fmt.Errorf("%s lacks %d of its %d results: %s; finish it with `routebench run --resume` and the flags it ran with",
			label, len(missing), wanted, listSome(missing)))
	}
	if len(dups) > 0 {
		problems = append(problems, fmt.Errorf("%s holds %d results more than once: %s; re-run it", label, len(dups), listSome(dups)))
	}
	if len(foreign) > 0 {
		problems = append(problems, fmt.Errorf("%s holds %d results its plan does not give this shard: %s; re-run it", label, len(foreign), listSome(foreign)))
	}
	if len(stale) > 0 {
		problems = append(problems, fmt.Errorf("%s holds %d results of cases whose content has changed since: %s; finish it with `routebench run --resume`", label, len(stale), listSome(stale)))
	}
	return problems
}

// listSome names the first few items and counts the rest, so a message
// about thousands of cases stays readable.
func listSome(items []string) string {
	const shown = 5
	if len(items) <= shown {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:shown], ", "), len(items)-shown)
}

// joinIndented joins errors one per line, indented under a heading.
func joinIndented(errs []error) error {
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return errors.New(strings.Join(msgs, "\n  "))
}
