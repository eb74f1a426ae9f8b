package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/exitcode"
)

func init() { subcommands = append(subcommands, newMergeCmd) }

func newMergeCmd() *cobra.Command {
	var out string
	var wide bool
	cmd := &cobra.Command{
		Use:   "merge DIR... -o DIR",
		Short: "Join sharded results into one run's outputs",
		Long: `Join the results.jsonl of runs made with --shard i/n into what one full run
would have written: each (version, case) once, in version then case order;
then re-score and write summary.json and the reports in the output directory.
The reports name the versions as the run did (full fingerprints, directories
and descriptions, from the first DIR's plan.json), so they are what the
unsharded run writes. A DIR may also be a results.jsonl file (its plan.json
beside it).

The shards must make one complete run: the same plan (versions, their
fingerprints, cases and --label-filter, recorded in each DIR/plan.json),
shard i/n each exactly once, and in each shard every result it planned,
once. Otherwise merge lists what is missing, duplicated or foreign (which
shard, which cases) and exits 2.

Examples:
  routebench merge out/s1 out/s2 out/s3 out/s4 -o out/all`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return exitcode.Usagef("merge: -o DIR is required")
			}
			// Checked before anything is written: one pass over each
			// shard's results, keeping positions, not results.
			merge, err := harness.PrepareMerge(args)
			if err != nil {
				return exitcode.With(exitcode.Usage, err)
			}
			lock, err := lockOutput(out)
			if err != nil {
				return err
			}
			defer lock.Release()
			if err := removeOutputs(out); err != nil {
				return err
			}
			if err := merge.WriteTo(filepath.Join(out, harness.ResultsFile)); err != nil {
				return err
			}
			// The merged directory is one whole run: its plan is the shards'
			// plan, unsharded, so it can be merged or resumed like one.
			if err := merge.WritePlan(filepath.Join(out, harness.PlanFile)); err != nil {
				return err
			}
			// The plan names the versions as the run did (full fingerprints,
			// directories, descriptions), so the merged reports show them
			// as the unsharded run's would.
			if err := writeOutputs(cmd.OutOrStdout(), out, planVersionMetas(merge.Versions()), wide, nil); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "merged %d results from %d runs into %s\n", merge.Count(), len(args), out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "output directory (required)")
	cmd.Flags().BoolVar(&wide, "wide", false, "print the table with 95% intervals, whatever the terminal width")
	return cmd
}
