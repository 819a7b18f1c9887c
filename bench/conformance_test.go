package bench

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
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
// all three libraries, reports how many each gets right (expected: rfc_want
// when present, else want; see ../../shared/conformance/README.md), and
// requires ours to get every one.
func TestConformanceComparison(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(sharedtest.Dir(t, "conformance"), "cases.json"))
	require.NoError(t, err)
	var cases []struct {
		ID        string  `json:"id"`
		Robots    *string `json:"robots"`
		RobotsB64 *string `json:"robots_b64"`
		Agent     string  `json:"agent"`
		URL       string  `json:"url"`
		Want      bool    `json:"want"`
		RFCWant   *bool   `json:"rfc_want"`
	}
	require.NoError(t, json.Unmarshal(data, &cases))

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
			var body []byte
			if c.RobotsB64 != nil {
				body, err = base64.StdEncoding.DecodeString(*c.RobotsB64)
				require.NoError(t, err)
			} else {
				body = []byte(*c.Robots)
			}
			want := c.Want
			if c.RFCWant != nil {
				want = *c.RFCWant
			}
			if lib.allowed(body, c.Agent, c.URL) == want {
				passed++
			}
		}
		t.Logf("%-10s %d/%d conformance vectors", lib.name, passed, len(cases))
		if lib.name == "robots" {
			assert.Equal(t, len(cases), passed)
		}
	}
}
