//go:build !unix

package mcpclient

import (
	"os"
	"os/exec"
)

var (
	termSignal = os.Kill // no SIGTERM to send here: the only way is to end it
	killSignal = os.Kill
)

// ownProcessGroup does nothing where there are no process groups: only the server itself is stopped.
func ownProcessGroup(*exec.Cmd) {}

// signalGroup signals the server's process.
func signalGroup(cmd *exec.Cmd, sig os.Signal) {
	if cmd.Process != nil {
		_ = cmd.Process.Signal(sig)
	}
}
