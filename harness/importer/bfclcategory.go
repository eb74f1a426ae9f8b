package importer

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// bfclKind is how a BFCL category is scored.
type bfclKind int

const (
	// bfclCall: one call of the right function with the right params,
	// checked against a possible_answer file.
	bfclCall bfclKind = iota + 1
	// bfclAbstain: the right answer is to call nothing (irrelevance).
	bfclAbstain
	// bfclRelevance: any call of an offered function is right; there is no
	// answers file (live_relevance).
	bfclRelevance
	// bfclParallel: several calls per request; not imported (see
	// parallelRefusal).
	bfclParallel
	// bfclUnsupported: multi-turn and agentic categories.
	bfclUnsupported
)

// bfclCategories are BFCL's categories, v3 names (simple, java,
// javascript) and v4 names (simple_python, simple_java,
// simple_javascript) alike.
var bfclCategories = map[string]bfclKind{
	"simple": bfclCall, "simple_python": bfclCall,
	"java": bfclCall, "simple_java": bfclCall,
	"javascript": bfclCall, "simple_javascript": bfclCall,
	"multiple": bfclCall, "live_simple": bfclCall, "live_multiple": bfclCall,
	"irrelevance": bfclAbstain, "live_irrelevance": bfclAbstain,
	"live_relevance": bfclRelevance,
	"parallel":       bfclParallel, "parallel_multiple": bfclParallel,
	"live_parallel": bfclParallel, "live_parallel_multiple": bfclParallel,
	"multi_turn_base": bfclUnsupported, "multi_turn_miss_func": bfclUnsupported,
	"multi_turn_miss_param": bfclUnsupported, "multi_turn_long_context": bfclUnsupported,
	"memory": bfclUnsupported, "web_search": bfclUnsupported, "format_sensitivity": bfclUnsupported,
}

// BFCLSupported lists the categories the importer takes.
func BFCLSupported() []string {
	var out []string
	for c, k := range bfclCategories {
		if k == bfclCall || k == bfclAbstain || k == bfclRelevance {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}

// bfclKindOf is the kind of a category, 0 when unknown.
func bfclKindOf(category string) bfclKind {
	return bfclCategories[category]
}

var (
	bfclFileName = regexp.MustCompile(`^BFCL_v\d+_(.+?)(\.jsonl?)?$`)
	bfclIDSuffix = regexp.MustCompile(`_\d+(-\d+)*$`)
)

// bfclCategoryOfFile reads the category from a file name such as
// BFCL_v4_live_simple.json, "" when it is not named that way.
func bfclCategoryOfFile(path string) string {
	m := bfclFileName.FindStringSubmatch(filepath.Base(path))
	if m == nil {
		return ""
	}
	return m[1]
}

// bfclCategoryOfID reads the category from an entry id: simple_python_12
// -> simple_python, live_simple_3-2-0 -> live_simple.
func bfclCategoryOfID(id string) string {
	return bfclIDSuffix.ReplaceAllString(id, "")
}

// pickBFCLCategory decides the category: the --category override, else
// the file name and the first id, which must agree when both name a known
// category.
func pickBFCLCategory(path, override, firstID string) (string, error) {
	if override != "" {
		if bfclKindOf(override) == 0 {
			return "", fmt.Errorf("--category %s: not a BFCL category; supported: %s", override, strings.Join(BFCLSupported(), ", "))
		}
		return override, nil
	}
	byFile, byID := bfclCategoryOfFile(path), bfclCategoryOfID(firstID)
	known := func(c string) bool { return bfclKindOf(c) != 0 }
	switch {
	case known(byFile) && known(byID) && byFile != byID:
		return "", fmt.Errorf("%s: the file name says category %s but its ids say %s (%s); pass --category to choose", path, byFile, byID, firstID)
	case known(byFile):
		return byFile, nil
	case known(byID):
		return byID, nil
	}
	return "", fmt.Errorf("%s: cannot tell the BFCL category from the file name or the id %q; name the file BFCL_v4_<category>.json or pass --category (supported: %s)",
		path, firstID, strings.Join(BFCLSupported(), ", "))
}

// bfclRefusal says why a category is not imported and what is.
func bfclRefusal(category string) error {
	supported := strings.Join(BFCLSupported(), ", ")
	switch bfclKindOf(category) {
	case bfclParallel:
		return fmt.Errorf("category %s is not imported: each request expects several calls at once, and a routebench decision acts on one skill or on one "+
			"workflow the registry defines (DESIGN §11); writing a workflow per case from its answer would hand the router the answer, so the score would "+
			"mean nothing. Supported: %s", category, supported)
	case bfclUnsupported:
		return fmt.Errorf("category %s is not imported: it is multi-turn or agentic (calls run against live state and later turns depend on them), "+
			"not single-turn routing. Supported: %s", category, supported)
	}
	return nil
}
