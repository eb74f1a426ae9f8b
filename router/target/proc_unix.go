//go:build unix

package target

import (
	"os/exec"
	"syscall"
)

// shellCommand runs the target's command line as a shell would.
func shellCommand(line string) *exec.Cmd { return exec.Command("/bin/sh", "-c", line) }

// setProcessGroup puts the process in a group of its own, so stopping it
// also stops whatever the shell started.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Process.Kill()
	}
}

// termProcessGroup asks what is left of the process's group to stop.
func termProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	}
}
