package robots_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/internal/sharedtest"
)

// conformanceCase is one vector of ../shared/conformance/cases.json: a check
// of Google's robots_test.cc, of google/robotstxt-spec-test, or of an
// RFC 9309 example (see the README beside it).
type conformanceCase struct {
	ID        string   `json:"id"`
	Source    string   `json:"source"`
	Group     string   `json:"group"`
	Kind      string   `json:"kind"`
	Robots    *string  `json:"robots"`
	RobotsB64 *string  `json:"robots_b64"`
	Agent     string   `json:"agent"`
	URL       string   `json:"url"`
	Want      bool     `json:"want"`
	RFCWant   *bool    `json:"rfc_want"`
	Flags     []string `json:"flags"`
	Note      string   `json:"note"`
}

func (c conformanceCase) body(t *testing.T) []byte {
	if c.RobotsB64 != nil {
		b, err := base64.StdEncoding.DecodeString(*c.RobotsB64)
		require.NoError(t, err)
		return b
	}
	require.NotNil(t, c.Robots, "case has neither robots nor robots_b64")
	return []byte(*c.Robots)
}

// expected is the project's answer: RFC 9309 where it and Google disagree
// (DESIGN.md), so rfc_want when present, else want.
func (c conformanceCase) expected() bool {
	if c.RFCWant != nil {
		return *c.RFCWant
	}
	return c.Want
}

// TestConformance runs every published vector through AllowedBy.
func TestConformance(t *testing.T) {
	dir := sharedtest.Dir(t, "conformance")
	data, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	require.NoError(t, err)
	var cases []conformanceCase
	require.NoError(t, json.Unmarshal(data, &cases))
	require.NotEmpty(t, cases)

	passed := 0
	bySource := map[string][2]int{}
	for _, c := range cases {
		got := robots.AllowedBy(c.body(t), c.Agent, c.URL)
		ok := got == c.expected()
		s := bySource[c.Source]
		s[1]++
		if ok {
			passed++
			s[0]++
		}
		bySource[c.Source] = s
		assert.Equal(t, c.expected(), got, "%s (%s, agent %q, url %.120q, flags %v) %s",
			c.ID, c.Kind, c.Agent, c.URL, c.Flags, c.Note)
	}
	for src, s := range bySource {
		t.Logf("%-20s %d/%d", src, s[0], s[1])
	}
	t.Logf("conformance: %d/%d vectors pass", passed, len(cases))
}
