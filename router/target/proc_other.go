//go:build !unix

package target

import "os/exec"

// shellCommand runs the target's command line with the system's shell.
func shellCommand(line string) *exec.Cmd { return exec.Command("cmd", "/C", line) }

// setProcessGroup does nothing where process groups are not Unix's.
func setProcessGroup(*exec.Cmd) {}

func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// termProcessGroup has no group to reach where groups are not Unix's.
func termProcessGroup(*exec.Cmd) {}
