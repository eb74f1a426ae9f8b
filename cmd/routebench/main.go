// Command routebench tells a team, before a prompt change ships, whether its
// agent's skill router got better or worse. See README.md and DESIGN.md.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/routebench/routebench/internal/exitcode"
	"github.com/routebench/routebench/router/builtin"
)

// subcommands is filled by each subcommand's file (one file per command),
// so adding a command touches only its own file.
var subcommands []func() *cobra.Command

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "routebench",
		Short: "Measure whether an LLM agent's skill router got better or worse",
		Long: `Measure whether an LLM agent's skill router got better or worse.

The builtin models' fits are cached on disk, by content, in the user cache
folder (~/.cache/routebench on Linux): the next run of the same registry
reads its fit back. ROUTEBENCH_CACHE=DIR caches in DIR, ROUTEBENCH_CACHE=off
turns the cache off.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// Flag parsing problems are usage errors (exit 2).
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return exitcode.With(exitcode.Usage, err)
	})
	for _, sub := range subcommands {
		root.AddCommand(sub())
	}
	return root
}

// run executes the command line and returns the exit code; main is a thin
// shell over it so the whole CLI is testable with buffers.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err != nil {
		code := exitcode.Of(err)
		// cobra's own errors (unknown command or flag) carry no code: usage.
		if _, ok := err.(*exitcode.Error); !ok && isCobraUsage(err) {
			code = exitcode.Usage
		}
		fmt.Fprintf(stderr, "routebench: %v\n", err)
		return code
	}
	return exitcode.Pass
}

func main() {
	cacheFromEnv()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// cacheFromEnv sets up the builtin models' disk cache: in the user cache
// folder unless ROUTEBENCH_CACHE names another directory or says off
// (README "Speed"). Only the command reads the variable: run, which the
// tests call, leaves the cache as it is (off).
func cacheFromEnv() {
	builtin.SetCacheDir(builtin.CacheDirFrom(os.Getenv("ROUTEBENCH_CACHE")))
}
