package robots_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every test leaves no goroutine behind: no fetch outlives its test, and the
// Client starts none of its own.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
