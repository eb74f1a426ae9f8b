package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/exitcode"
)

func init() { subcommands = append(subcommands, newMergeCmd) }

func newMergeCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge DIR... -o DIR",
		Short: "Join sharded results into one run's outputs",
		Long: `Join the results.jsonl of runs made with --shard i/n into what one full run
would have written: each (version, case) once, in version then case order;
then re-score and write summary.json and the reports in the output directory.
A DIR may also be a results.jsonl file.

Examples:
  routebench merge out/s1 out/s2 out/s3 out/s4 -o out/all`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return exitcode.Usagef("merge: -o DIR is required")
			}
			sets, err := harness.ReadResultSets(args)
			if err != nil {
				return exitcode.With(exitcode.Usage, fmt.Errorf("merge: %w", err))
			}
			merged, err := harness.Merge(sets...)
			if err != nil {
				return exitcode.With(exitcode.Usage, err)
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return fmt.Errorf("merge: %w", err)
			}
			if err := harness.WriteResultsFile(filepath.Join(out, harness.ResultsFile), merged); err != nil {
				return err
			}
			if err := writeOutputs(cmd.OutOrStdout(), out, merged, nil); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "merged %d results from %d runs into %s\n", len(merged), len(args), out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "output directory (required)")
	return cmd
}
