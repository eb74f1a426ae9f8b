package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/routebench/routebench/harness/importer"
	"github.com/routebench/routebench/internal/exitcode"
)

func init() { subcommands = append(subcommands, newImportCmd) }

func newImportCmd() *cobra.Command {
	var (
		out        string
		answers    string
		evalSplits string
		sideEffect string
		execute    float64
		clarify    float64
	)
	cmd := &cobra.Command{
		Use:   "import clinc150|bfcl|openai-tools FILE --out DIR",
		Short: "Convert public data into a prompt version (DIR/version/) and suites (DIR/suites/)",
		Long: `Convert public benchmark data into routebench's formats.

  clinc150      data_full.json of CLINC150 (oos-eval): one skill per intent with its
                train examples; one suite per --eval-splits key (in-scope items expect
                execute of their intent, oos items expect refuse).
  bfcl          one BFCL category file (JSON Lines); cases carry their own tools;
                --answers gives BFCL's possible_answer file (not needed for irrelevance).
  openai-tools  an OpenAI "tools" array; every function becomes a skill.

Examples:
  routebench import clinc150 ../shared/data/clinc150/dev.json --out out/clinc --eval-splits val,oos_val
  routebench import bfcl ../shared/data/bfcl/BFCL_v4_multiple.json \
      --answers ../shared/data/bfcl/possible_answer/BFCL_v4_multiple.json --out out/bfcl-multiple
  routebench import openai-tools tools.json --out out/tools`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return exitcode.Usagef("import: --out DIR is required")
			}
			kind, file := args[0], args[1]
			var err error
			switch kind {
			case "clinc150":
				err = importer.ImportCLINC150(file, out, importer.CLINC150Options{
					EvalSplits: parseEvalSplits(evalSplits),
					Bands:      importer.BandsDoc{Execute: execute, Clarify: clarify},
				})
			case "bfcl":
				err = importer.ImportBFCL(file, answers, out)
			case "openai-tools":
				err = importer.ImportOpenAITools(file, out, sideEffect)
			default:
				return exitcode.Usagef("import: unknown source %q: want clinc150, bfcl or openai-tools", kind)
			}
			if err != nil {
				return exitcode.With(exitcode.Usage, fmt.Errorf("import %s: %w", kind, err))
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s/version and %s/suites\n", out, out)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "output directory (required)")
	f.StringVar(&answers, "answers", "", "bfcl: possible_answer file")
	f.StringVar(&evalSplits, "eval-splits", "val,oos_val", "clinc150: splits turned into suites")
	f.StringVar(&sideEffect, "side-effect", "read", "openai-tools: side effect of every imported skill")
	f.Float64Var(&execute, "execute", importer.CLINCBands.Execute, "clinc150: execute band written into version.yaml")
	f.Float64Var(&clarify, "clarify", importer.CLINCBands.Clarify, "clinc150: clarify band written into version.yaml")
	return cmd
}

// parseEvalSplits parses a comma-separated flag value, dropping empty items.
func parseEvalSplits(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
