package parser

import (
	"testing"
	"unsafe"

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

// The strings of a Robots that ParseFunc hands fn are the body's memory,
// not copies; once fn has returned, the store that held them points into
// the body no more, so that a pooled store keeps no body alive.
func TestStoreKeepsNoBody(t *testing.T) {
	body := []byte("User-agent: a\nCrawl-delay: 1\nDisallow: /1\nContent-Usage: train-ai=n\nContent-Signal: search=yes\n" +
		"Host: x\nSitemap: https://x/1\n")
	st := new(store)
	rec := newRecording()
	r := parse(body, rec, st)
	rec.free()
	within := func(s string) bool {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		start := uintptr(unsafe.Pointer(&body[0]))
		return p >= start && p+uintptr(len(s)) <= start+uintptr(len(body))
	}
	require.Len(t, r.Groups, 1)
	g := r.Groups[0]
	require.Len(t, g.Rules, 1)
	assert.True(t, within(g.Rules[0].Pattern), "a pattern is the body's")
	assert.True(t, within(g.Agents[0].Value), "an agent")
	assert.True(t, within(g.ContentUsage[0].Preferences), "a Content-Usage value")
	assert.True(t, within(r.ContentSignals[0].Value), "a Content-Signal value")
	assert.True(t, within(r.Other[0].Key) && within(r.Other[0].Value), "a record")
	assert.True(t, within(r.Sitemaps[0]), "a sitemap")

	st.free()
	assert.Equal(t, make([]Agent, 1), st.agents[:1], "agents")
	assert.Equal(t, make([]Rule, 1), st.rules[:1], "rules")
	assert.Equal(t, make([]ContentUsage, 1), st.usages[:1], "Content-Usage")
	assert.Equal(t, make([]ContentSignal, 1), st.signals[:1], "Content-Signal")
	assert.Equal(t, make([]Record, 1), st.other[:1], "other records")
	assert.Equal(t, make([]string, 1), st.sitemaps[:1], "sitemaps")
}
