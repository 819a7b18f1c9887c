package bench

import (
	"testing"

	"github.com/jimsmart/grobotstxt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/temoto/robotstxt"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/internal/sharedtest"
	"github.com/crawlkit/robots/internal/urlpath"
)

// TestConformanceComparison runs the published conformance vectors through
// all three libraries, reports how many each gets right (expected:
// design_want, else rfc_want, else want; see
// ../../shared/conformance/README.md), and requires ours to get every one.
func TestConformanceComparison(t *testing.T) {
	cases := sharedtest.Cases(t)
	libs := []struct {
		name    string
		allowed func(body []byte, agent, url string) bool
	}{
		{"robots", robots.AllowedBy},
		{"temoto", func(body []byte, agent, url string) bool {
			r, err := robotstxt.FromBytes(body)
			if err != nil {
				return true
			}
			return r.TestAgent(urlpath.FromURL(url), agent)
		}},
		{"grobotstxt", func(body []byte, agent, url string) bool {
			return grobotstxt.AgentAllowed(string(body), agent, url)
		}},
	}
	for _, lib := range libs {
		passed := 0
		for _, c := range cases {
			body, err := c.Body()
			require.NoError(t, err)
			if lib.allowed(body, c.Agent, c.URL) == c.Expected() {
				passed++
			}
		}
		t.Logf("%-10s %d/%d conformance vectors", lib.name, passed, len(cases))
		if lib.name == "robots" {
			assert.Equal(t, len(cases), passed)
		}
	}
}
