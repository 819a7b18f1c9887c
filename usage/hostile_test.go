package usage_test

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/internal/sharedtest"
	"github.com/crawlkit/robots/usage"
)

// headerCap is the size of the hostile Content-Usage headers: work on a
// header is bounded by its size, not by how many members it claims.
const headerCap = 10 << 20

// hostileHeader is a Content-Usage field of about size bytes built to make
// reading it costly, and what it states.
type hostileHeader struct {
	name   string
	header http.Header
	want   string // FromHeader(header).String()
}

// joinMembers joins member(0), member(1), … with sep until the next would
// take the value past size bytes with tail.
func joinMembers(size int, sep, tail string, member func(i int) string) string {
	var b strings.Builder
	b.Grow(size)
	for i := 0; ; i++ {
		m := member(i)
		if b.Len()+len(sep)+len(m)+len(tail) > size {
			break
		}
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(m)
	}
	b.WriteString(tail)
	return b.String()
}

// hostileHeaders are the shapes of the issue that made a 10 MiB header cost
// 732 MB (a record per member), and those that make the labels outside the
// vocabulary costly to follow.
func hostileHeaders(size int) []hostileHeader {
	one := func(v string) http.Header { return http.Header{"Content-Usage": {v}} }
	// Labels of 64 bytes, the longest kept, that differ only at their end.
	long := func(i int) string { return fmt.Sprintf("%s%08d", strings.Repeat("k", usage.MaxExtraLabelLen-8), i) }
	distinct := joinMembers(size, ", ", "", func(i int) string { return fmt.Sprintf("k%d=y", i) })
	var lines []string
	for n := 0; n+len("a=y")+2 <= size; n += len("a=y") + 2 {
		lines = append(lines, "a=y")
	}
	return []hostileHeader{
		{"bare keys", one(joinMembers(size, ",", "", func(int) string { return "a" })), ""},
		{"same label", one(joinMembers(size, ", ", "", func(int) string { return "a=y" })), "a=y"},
		{"known label", one(joinMembers(size, ", ", "", func(int) string { return "train-ai=n" })), "train-ai=n"},
		{"invalid last", one(joinMembers(size, ",", ",X", func(int) string { return "a" })), ""},
		{"distinct labels", one(distinct), firstLabels(strings.Count(distinct, ",")+1, func(i int) string { return fmt.Sprintf("k%d", i) }, "=y")},
		// Each label comes first in byte order so far: every member moves
		// the ones followed.
		{"descending labels", one(joinMembers(size, ",", "", func(i int) string { return fmt.Sprintf("k%07d=n", 9_999_999-i) })), ""},
		{"long labels", one(joinMembers(size, ",", "", func(i int) string { return long(1e7-i) + "=y" })), ""},
		{"long member", one("train-ai=" + strings.Repeat("y", size-len("train-ai="))), ""},
		{"many lines", http.Header{"Content-Usage": lines}, "a=y"},
	}
}

// leastAllocated returns the least of what fn allocated in three runs:
// what else runs meanwhile only adds.
func leastAllocated(fn func()) int64 {
	least := int64(math.MaxInt64)
	for range 3 {
		a, _ := sharedtest.Memory(fn)
		least = min(least, a)
	}
	return least
}

// firstLabels is the canonical form of n labels label(0), label(1), …, all
// stated with the value suffix: the first MaxExtraLabels in byte order.
func firstLabels(n int, label func(i int) string, suffix string) string {
	ls := make([]string, n)
	for i := range ls {
		ls[i] = label(i)
	}
	slices.Sort(ls)
	ls = ls[:min(n, usage.MaxExtraLabels)]
	return strings.Join(ls, suffix+", ") + suffix
}

// headerSize is the size of the Content-Usage value of h, its lines joined.
func headerSize(h http.Header) int {
	lines := h.Values(usage.HeaderName)
	n := 2 * max(len(lines)-1, 0)
	for _, l := range lines {
		n += len(l)
	}
	return n
}

// A Content-Usage header costs a small multiple of its bytes, whatever
// its members: a 10 MiB header allocates at most 64 MiB (it allocated 732
// MB, a record per member). The time it takes is BenchmarkFromHeaderHostile's.
func TestFromHeaderHostileMemory(t *testing.T) {
	for _, h := range hostileHeaders(headerCap) {
		t.Run(h.name, func(t *testing.T) {
			size := headerSize(h.header)
			require.Greater(t, size, headerCap-100)
			var p usage.Prefs
			allocated, _ := sharedtest.Memory(func() { p = usage.FromHeader(h.header) })
			t.Logf("%d bytes: %d bytes allocated (%.3fx)", size, allocated, float64(allocated)/float64(size))
			assert.LessOrEqual(t, allocated, int64(64<<20))
			if h.want != "" {
				assert.Equal(t, h.want, p.String())
			}
		})
	}
}

// Parse allocates only the string of the labels outside the vocabulary it
// keeps, and a bounded set to follow them when there are more than a few:
// nothing for a value of the vocabulary's labels, whatever the number of
// members.
func TestParseAllocatesWhatItKeeps(t *testing.T) {
	for _, tt := range []struct {
		value  string
		allocs float64
	}{
		{"train-ai=n, search=y", 0},
		{`train-ai=n;reason="policy";v=2, search=y, ai-use`, 0},
		{"bots, tdm=yes, train-ai=n", 0},
		{"Bad=y", 0},
		{strings.Repeat("a, ", 1<<14) + "train-ai=n", 0},
		{strings.Repeat("a=y, ", 1<<14) + "a", 0},
		{"future-label=n, train-ai=y", 1},
		{strings.Repeat("a=n, ", 1<<14) + "a=y", 1},
		{joinMembers(1<<16, ", ", "", func(i int) string { return fmt.Sprintf("k%d=y", 1<<20-i) }), 2},
	} {
		assert.Equal(t, tt.allocs, testing.AllocsPerRun(5, func() { usage.Parse(tt.value) }), "%.40q", tt.value)
		kept := len(usage.Parse(tt.value).String())
		assert.LessOrEqual(t, leastAllocated(func() { usage.Parse(tt.value) }), int64(kept+2<<10), "%.40q", tt.value)
	}
}
