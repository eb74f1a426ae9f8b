package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/importer"
	"github.com/routebench/routebench/internal/exitcode"
)

func init() { subcommands = append(subcommands, newBFCLCmd) }

func newBFCLCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "bfcl-check RESULTS.jsonl",
		Short: "Score imported BFCL results with BFCL's checker, next to routebench's own metrics",
		Long: `Apply BFCL's AST checker to the results of imported BFCL cases: a case fails on
no call (a clarify or refuse where a call was due), a wrong function, a missing
required param, an unexpected param, a wrong type or a value outside the
acceptable list (strings compared after BFCL's normalization; numbers compared as
numbers, so an int where a float is due passes, as BFCL converts it; a dict param
must have exactly the keys of one accepted dict). Params a function requires are
never optional, as BFCL checks required params first.
Irrelevance and live_irrelevance cases count as right only when nothing was
called (a refusal or a clarification); live_relevance cases when anything was
called. A router error is never an abstention.

Example:
  routebench import bfcl ../shared/data/bfcl/BFCL_v4_live_simple.json \
      --answers ../shared/data/bfcl/possible_answer/BFCL_v4_live_simple.json --out out/bfcl
  routebench import bfcl ../shared/data/bfcl/BFCL_v4_live_relevance.json --out out/bfcl-rel
  routebench run --versions out/bfcl/version --suites out/bfcl/suites,out/bfcl-rel/suites --out out/bfcl-run
  routebench bfcl-check out/bfcl-run/results.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			results, err := harness.ReadResults(args[0])
			if err != nil {
				return exitcode.With(exitcode.Usage, fmt.Errorf("bfcl-check: %w", err))
			}
			return importer.WriteBFCL(cmd.OutOrStdout(), results)
		},
	}
}
