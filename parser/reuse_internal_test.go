package parser

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A store that held a large file and then a small one points only into
// the small one's memory: the elements the large file left past the
// small one's are cleared, so that no text the store let go is kept alive
// by them.
func TestStoreClearsWhatTheLastFileLeft(t *testing.T) {
	large := []byte("User-agent: a\nUser-agent: b\nDisallow: /1\nAllow: /2\nDisallow: /3\nContent-Usage: train-ai=n\n" +
		"Content-Signal: search=yes\nHost: x\nSitemap: https://x/1\nSitemap: https://x/2\nUser-agent: c\nDisallow: /4\n")
	small := []byte("User-agent: a\nDisallow: /1\n")
	st := new(store)
	parseIn := func(body []byte) *Robots {
		rec := newRecording()
		defer rec.free()
		return parse(body, rec, st)
	}
	r := parseIn(large)
	require.Len(t, r.Groups, 2)
	require.Equal(t, 4, st.last.rules)
	r = parseIn(small)
	require.Len(t, r.Groups, 1)
	assert.Equal(t, tally{groups: 1, agents: 1, rules: 1, bytes: st.last.bytes}, st.last)
	assert.Equal(t, make([]Group, 1), st.groups[1:2], "groups")
	assert.Equal(t, make([]Agent, 2), st.agents[1:3], "agents")
	assert.Equal(t, make([]Rule, 3), st.rules[1:4], "rules")
	assert.Equal(t, make([]ContentUsage, 1), st.usages[:1], "Content-Usage")
	assert.Equal(t, make([]ContentSignal, 1), st.signals[:1], "Content-Signal")
	assert.Equal(t, make([]Record, 1), st.other[:1], "other records")
	assert.Equal(t, make([]string, 2), st.sitemaps[:2], "sitemaps")
}
