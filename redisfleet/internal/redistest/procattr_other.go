//go:build !linux

package redistest

import "os/exec"

// dieWithParent is a no-op where the kernel cannot tie a child's life to
// its parent's: Cleanup still stops the server when the test ends.
func dieWithParent(*exec.Cmd) {}
