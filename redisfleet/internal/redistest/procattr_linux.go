package redistest

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes cmd die when the test process does, even when the
// test binary is killed (a -timeout panic, SIGKILL): no redis-server is left
// behind.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
