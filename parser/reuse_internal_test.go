package parser

import (
	"bytes"
	"fmt"
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
	parseIn := func(body []byte) {
		rec := newRecording()
		defer rec.free()
		parse(body, rec, st)
	}
	parseIn(large)
	require.Greater(t, st.size(), keptStore)
	require.True(t, st.keeps(), "a large file's store is kept for the next")
	for range maxIdle - 1 {
		parseIn(small)
		require.True(t, st.keeps())
	}
	parseIn(large)
	require.True(t, st.keeps(), "a large file resets the count")
	for range maxIdle {
		parseIn(small)
		require.True(t, st.keeps())
	}
	parseIn(small)
	assert.False(t, st.keeps(), "after %d small files in a row, a store of %d B is let go", maxIdle, st.size())
}

// A file whose store fits in maxStore is kept, even after a smaller file:
// growing its arrays with room to spare does not take the store past
// maxStore, where free would let it go and the room would be garbage.
func TestStoreGrowsNotPastMax(t *testing.T) {
	body := append([]byte("User-agent: *\n"), bytes.Repeat([]byte("allow:/ab\n"), 51200)...) // 500 KiB
	st := new(store)
	parseIn := func(body []byte) {
		rec := newRecording()
		defer rec.free()
		parse(body, rec, st)
	}
	parseIn(body)
	exact := st.size()
	require.LessOrEqual(t, exact, maxStore, "the file's store fits")
	require.Greater(t, 5*exact/4, maxStore, "a quarter more would not")
	*st = store{}
	parseIn(body[:len(body)/2]) // an older, smaller version
	parseIn(body)
	assert.LessOrEqual(t, st.size(), maxStore, "grown from a smaller store")
}
