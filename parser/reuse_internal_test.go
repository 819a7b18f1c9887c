package parser

import (
	"bytes"
	"fmt"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parseIn parses body into the store st, as ParseFunc does but for
// handing st back.
func parseIn(st *store, body []byte) *Robots {
	rec := newRecording()
	defer rec.free()
	return parse(body, rec, st)
}

// A store that grew for a large file lets it go once small files have
// followed it for a while: a goroutine that met one large file does not
// hold its memory for the rest of a crawl. While files that need it keep
// coming, it is kept.
func TestStoreLetsGoOfALargeFileAfterSmallOnes(t *testing.T) {
	var large []byte
	large = append(large, "User-agent: *\n"...)
	for i := range 4000 {
		large = fmt.Appendf(large, "Disallow: /gp/video/%d/page\n", i)
	}
	small := []byte("User-agent: a\nDisallow: /1\n")
	st := new(store)
	parseIn(st, large)
	require.Greater(t, st.size(), keptStore)
	require.True(t, st.keeps(), "a large file's store is kept for the next")
	for range maxIdle - 1 {
		parseIn(st, small)
		require.True(t, st.keeps())
	}
	parseIn(st, large)
	require.True(t, st.keeps(), "a large file resets the count")
	for range maxIdle {
		parseIn(st, small)
		require.True(t, st.keeps())
	}
	parseIn(st, small)
	assert.False(t, st.keeps(), "after %d small files in a row, a store of %d B is let go", maxIdle, st.size())
}

// A file whose store fits in maxStore is kept, even after a smaller file:
// growing its arrays with room to spare does not take the store past
// maxStore, where free would let it go and the room would be garbage.
func TestStoreGrowsNotPastMax(t *testing.T) {
	body := append([]byte("User-agent: *\n"), bytes.Repeat([]byte("allow:/a\n"), 56000)...) // 492 KiB
	st := new(store)
	parseIn(st, body)
	exact := st.size()
	require.LessOrEqual(t, exact, maxStore, "the file's store fits")
	require.Greater(t, 5*exact/4, maxStore, "a quarter more would not")
	*st = store{}
	parseIn(st, body[:len(body)/2]) // an older, smaller version
	parseIn(st, body)
	assert.LessOrEqual(t, st.size(), maxStore, "grown from a smaller store")
}

// The strings of a Robots that ParseFunc hands fn are the body's memory,
// not copies; once fn has returned, the store that held them points into
// the body no more, so that a pooled store keeps no body alive.
func TestStoreKeepsNoBody(t *testing.T) {
	body := []byte("User-agent: a\nCrawl-delay: 1\nDisallow: /1\nContent-Usage: train-ai=n\nContent-Signal: search=yes\n" +
		"Host: x\nSitemap: https://x/1\n")
	st := new(store)
	r := parseIn(st, body)
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
	assert.Equal(t, make([]Group, 1), st.groups[:1], "groups")
	assert.Equal(t, make([]Agent, 1), st.agents[:1], "agents")
	assert.Equal(t, make([]Rule, 1), st.rules[:1], "rules")
	assert.Equal(t, make([]ContentUsage, 1), st.usages[:1], "Content-Usage")
	assert.Equal(t, make([]ContentSignal, 1), st.signals[:1], "Content-Signal")
	assert.Equal(t, make([]Record, 1), st.other[:1], "other records")
	assert.Equal(t, make([]string, 1), st.sitemaps[:1], "sitemaps")
}
