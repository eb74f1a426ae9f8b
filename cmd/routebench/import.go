package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/routebench/routebench/harness/importer"
	"github.com/routebench/routebench/internal/exitcode"
)

func init() { subcommands = append(subcommands, newImportCmd) }

func newImportCmd() *cobra.Command {
	var (
		out         string
		answers     string
		category    string
		evalSplits  string
		oosLabels   string
		sideEffects []string
		execute     float64
		clarify     float64
	)
	cmd := &cobra.Command{
		Use:   "import clinc150|bfcl|openai-tools|mcp-tools|rasa|csv FILE --out DIR",
		Short: "Convert public data into a prompt version (DIR/version/) and suites (DIR/suites/)",
		Long: `Convert public data into routebench's formats, and print what was written,
what was skipped and why, and what was assumed.

  clinc150      data_full.json of CLINC150 (oos-eval): one skill per intent with its
                train examples; one suite per --eval-splits key (in-scope items expect
                execute of their intent, oos items expect refuse); a missing val or
                oos_val split is carved from train / oos_train.
  bfcl          one BFCL single-turn category file (JSON Lines): simple_python,
                simple_java, simple_javascript, multiple, live_simple, live_multiple
                (need --answers, BFCL's possible_answer file), irrelevance,
                live_irrelevance (expect no call), live_relevance (any call is right;
                run as workflow cases). Cases carry their own functions. The category
                comes from the file name (BFCL_v3_/BFCL_v4_...) or the ids; --category
                overrides. Parallel and multi-turn categories are refused, saying why.
  openai-tools  an OpenAI tools file: the array, {"tools": [...]}, one tool, or bare
                function objects; every function becomes a skill.
  mcp-tools     an MCP tools/list result (the JSON-RPC response, its result, or the
                tools array); annotations give the side effect (readOnlyHint -> read,
                destructiveHint true/false -> delete/write).
  rasa          Rasa NLU YAML (a file, or a folder such as data/: every file with nlu:):
                one skill per intent, entities as string params
                (synonyms -> x-synonyms on an enum, lookup tables -> enum, entity
                regexes -> pattern); responses/rules/stories are read past.
  csv           CSV with a header text,label[,split] (any column order): one skill per
                label.

Tools: a side effect comes from MCP annotations, then --side-effect NAME=KIND
(repeat it or separate with commas; a bare KIND applies to every tool not named),
else read, and the tools assumed read are listed.
Rasa and CSV: without a split, ~20% of each label is carved into val (by a hash of
the text: the same file always splits the same way); labels named by --oos-label
become refusal cases (suite oos_val), not skills; names the registry would reject
are cleaned (reverted_card_payment? -> reverted_card_payment), collisions get _2.

Examples:
  routebench import clinc150 ../shared/data/clinc150/dev.json --out out/clinc --eval-splits val,oos_val
  routebench import bfcl ../shared/data/bfcl/BFCL_v4_live_simple.json \
      --answers ../shared/data/bfcl/possible_answer/BFCL_v4_live_simple.json --out out/bfcl-live_simple
  routebench import bfcl ../shared/data/bfcl/BFCL_v4_live_relevance.json --out out/bfcl-live_relevance
  routebench import openai-tools tools.json --side-effect send_email=send,delete_file=delete --out out/tools
  routebench import mcp-tools tools-list.json --out out/mcp
  routebench import rasa data/nlu.yml --out out/rasa
  routebench import csv intents.csv --oos-label oos,other --out out/csv`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return exitcode.Usagef("import: --out DIR is required")
			}
			kind, file := args[0], args[1]
			if _, known := importFlags[kind]; !known {
				return exitcode.Usagef("import: unknown source %q: want clinc150, bfcl, openai-tools, mcp-tools, rasa or csv", kind)
			}
			if err := checkImportFlags(cmd, kind); err != nil {
				return err
			}
			se, err := importer.ParseSideEffects(sideEffects)
			if err != nil {
				return exitcode.With(exitcode.Usage, fmt.Errorf("import %s: %w", kind, err))
			}
			bands := importer.BandsDoc{Execute: execute, Clarify: clarify}
			intents := importer.IntentOptions{OOSLabels: importer.ParseLabels(oosLabels), Bands: bands}
			if cmd.Flags().Changed("eval-splits") {
				intents.EvalSplits = importer.ParseLabels(evalSplits)
			}
			var report *importer.Report
			switch kind {
			case "clinc150":
				report, err = importer.ImportCLINC150(file, out, importer.CLINC150Options{EvalSplits: importer.ParseLabels(evalSplits), Bands: bands})
			case "bfcl":
				report, err = importer.ImportBFCL(file, out, importer.BFCLOptions{Answers: answers, Category: category})
			case "openai-tools":
				report, err = importer.ImportOpenAITools(file, out, importer.ToolsOptions{SideEffects: se})
			case "mcp-tools":
				report, err = importer.ImportMCPTools(file, out, importer.ToolsOptions{SideEffects: se})
			case "rasa":
				report, err = importer.ImportRasa(file, out, intents)
			case "csv":
				report, err = importer.ImportCSV(file, out, intents)
			}
			if err != nil {
				return exitcode.With(exitcode.Usage, fmt.Errorf("import %s: %w", kind, err))
			}
			return report.Write(cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "output directory (required)")
	f.StringVar(&answers, "answers", "", "bfcl: possible_answer file")
	f.StringVar(&category, "category", "", "bfcl: the category, when the file name and ids do not say it")
	f.StringVar(&evalSplits, "eval-splits", "val,oos_val", "clinc150, rasa, csv: splits turned into suites (rasa and csv: val unless set)")
	f.StringVar(&oosLabels, "oos-label", strings.Join(importer.DefaultOOSLabels, ","), "rasa, csv: labels that mean out of scope (refusal cases, not skills)")
	f.StringArrayVar(&sideEffects, "side-effect", nil, "openai-tools, mcp-tools: NAME=read|write|delete|send, repeatable or comma-separated; a bare KIND for every tool not named")
	f.Float64Var(&execute, "execute", importer.CLINCBands.Execute, "clinc150, rasa, csv: execute band written into version.yaml")
	f.Float64Var(&clarify, "clarify", importer.CLINCBands.Clarify, "clinc150, rasa, csv: clarify band written into version.yaml")
	return cmd
}

// importFlags are the flags each source reads; a flag given to a source
// that ignores it is a usage error, not silently dropped.
var importFlags = map[string][]string{
	"clinc150":     {"eval-splits", "execute", "clarify"},
	"bfcl":         {"answers", "category"},
	"openai-tools": {"side-effect"},
	"mcp-tools":    {"side-effect"},
	"rasa":         {"eval-splits", "oos-label", "execute", "clarify"},
	"csv":          {"eval-splits", "oos-label", "execute", "clarify"},
}

func checkImportFlags(cmd *cobra.Command, kind string) error {
	for _, name := range []string{"answers", "category", "eval-splits", "oos-label", "side-effect", "execute", "clarify"} {
		if cmd.Flags().Changed(name) && !slices.Contains(importFlags[kind], name) {
			return exitcode.Usagef("import %s: --%s does not apply to %s; it is for %s", kind, name, kind, strings.Join(sourcesWith(name), ", "))
		}
	}
	return nil
}

func sourcesWith(flag string) []string {
	var out []string
	for _, k := range []string{"clinc150", "bfcl", "openai-tools", "mcp-tools", "rasa", "csv"} {
		if slices.Contains(importFlags[k], flag) {
			out = append(out, k)
		}
	}
	return out
}
