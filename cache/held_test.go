package cache_test

import (
	"math"
	"net/http"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/status"
)

// common is a compact record of the form a fetch makes most: a file
// fetched from the URL asked.
func common(key string) *cache.Record {
	url := key + "/robots.txt"
	return (&cache.Record{Authority: url[:len(key)], URL: url, FinalURL: url,
		StatusCode: 200, Class: status.Success, Outcome: "200 OK: rules", Truncated: true,
		Header:    http.Header{"Etag": {`"v1"`}, "Date": {httpDate(now)}},
		Body:      []byte("User-agent: *\nDisallow: /private\n"),
		FetchedAt: now, FreshUntil: now.Add(time.Hour)}).Compact()
}

// A Held gives back the record it holds, whatever its form: a record of the
// common form from fields of its own, without its monotonic readings; any
// other as the record itself.
func TestHeldIsTheRecord(t *testing.T) {
	withMono := common("https://m.example")
	withMono.FetchedAt, withMono.FreshUntil = time.Now(), time.Now().Add(time.Hour)
	local := common("https://l.example")
	local.FetchedAt, local.FreshUntil = now.Local(), now.Add(time.Minute).Local()
	url := "https://e.example/robots.txt"
	empty := &cache.Record{Authority: url[:len(url)-len("/robots.txt")], URL: url, FinalURL: url,
		StatusCode: 404, Class: status.Unavailable, Outcome: "404 Not Found", FetchedAt: now, FreshUntil: now.Add(time.Hour)}
	for name, r := range map[string]*cache.Record{"a file": common("https://a.example"), "with monotonic readings": withMono,
		"in the local zone": local, "a status": empty} {
		t.Run(name, func(t *testing.T) {
			h := cache.Hold(r)
			got := h.Record()
			require.NotSame(t, r, got, "held in fields")
			want := *r
			want.FetchedAt, want.FreshUntil = r.FetchedAt.Round(0), r.FreshUntil.Round(0)
			assert.Equal(t, want, *got)
			assert.Equal(t, want, h.Fields())
			assert.Equal(t, r.Authority, h.Authority())
			assert.True(t, r.FetchedAt.Equal(h.FetchedAt()))
			assert.True(t, r.FreshUntil.Equal(h.FreshUntil()))
			assert.Equal(t, r.FetchedAt.Location(), h.FetchedAt().Location())
			assert.Nil(t, h.Outage())
			assert.Equal(t, r.File(), got.File())
			assert.Equal(t, r.Headers(), got.Headers())
			assert.True(t, got.SameBody(r) || r.BodyLen() == 0)
			// The record's own Size counts its 240 bytes; h, inside what
			// holds it, counts what it points to.
			assert.Equal(t, r.Size()-int64(unsafe.Sizeof(*r)), h.Size())
			assert.Equal(t, unsafe.StringData(got.URL), unsafe.StringData(got.Authority), "one string")
			assert.Zero(t, testing.AllocsPerRun(50, func() {
				_ = h.Fields()
				_, _, _ = h.Authority(), h.FetchedAt(), h.FreshUntil()
			}), "read without allocating")
		})
	}
}

// A Held is 80 bytes on a 64-bit machine, where a Record is 240: what a
// cache keeps per authority inside its own entry (see TestHeldIsTheRecord
// for what the record's Size counts beside).
func TestHeldSize(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the sizes asserted are those of a 64-bit machine")
	}
	assert.Equal(t, uintptr(80), unsafe.Sizeof(cache.Held{}))
	assert.Equal(t, uintptr(240), unsafe.Sizeof(cache.Record{}))
}

// Records of any other form are held whole: Record is the record itself.
func TestHeldWhole(t *testing.T) {
	key := "https://a.example"
	outage := &cache.Record{Authority: key, URL: key + "/robots.txt", FinalURL: key + "/robots.txt",
		Class: status.Unreachable, Outcome: "unreachable", FetchedAt: now, FreshUntil: now.Add(time.Minute),
		Failures: 2, UnreachableSince: now.Add(-time.Hour), Good: common(key)}
	edit := func(f func(r *cache.Record)) *cache.Record {
		r := common(key)
		f(r)
		return r
	}
	for name, r := range map[string]*cache.Record{
		"an outage":            outage,
		"expanded":             common(key).Expand(),
		"redirected":           edit(func(r *cache.Record) { r.FinalURL = key + "/other.txt" }),
		"with redirects":       edit(func(r *cache.Record) { r.Redirects = []fetch.Hop{{URL: r.URL, StatusCode: 301}} }),
		"another URL":          edit(func(r *cache.Record) { r.URL, r.FinalURL = key+"/x.txt", key+"/x.txt" }),
		"another authority":    edit(func(r *cache.Record) { r.Authority = "https://b.example" }),
		"no URL":               edit(func(r *cache.Record) { r.Authority, r.URL, r.FinalURL = "", "", "" }),
		"a failure counted":    edit(func(r *cache.Record) { r.Failures = 1 }),
		"a status of 5 digits": edit(func(r *cache.Record) { r.StatusCode = math.MaxInt16 + 1 }),
		"a time far away":      edit(func(r *cache.Record) { r.FreshUntil = time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC) }),
		"no time":              edit(func(r *cache.Record) { r.FetchedAt = time.Time{} }),
		"two zones":            edit(func(r *cache.Record) { r.FreshUntil = r.FreshUntil.In(time.FixedZone("x", 60)) }),
		"UTC and local":        edit(func(r *cache.Record) { r.FreshUntil = r.FreshUntil.Local() }),
		"a zone of its own": edit(func(r *cache.Record) {
			zone := time.FixedZone("UTC+3", 3*60*60)
			r.FetchedAt, r.FreshUntil = r.FetchedAt.In(zone), r.FreshUntil.In(zone)
		}),
		// Each field the fields of a Held have no room for.
		"a body set":        edit(func(r *cache.Record) { r.Body = []byte("User-agent: *\nDisallow: /new\n") }),
		"headers set":       edit(func(r *cache.Record) { r.Header = http.Header{"Etag": {`"v2"`}} }),
		"a good copy":       edit(func(r *cache.Record) { r.Good = common(key) }),
		"an outage begun":   edit(func(r *cache.Record) { r.UnreachableSince = now }),
		"unreachable":       edit(func(r *cache.Record) { r.Class = status.Unreachable }),
		"a negative status": edit(func(r *cache.Record) { r.StatusCode = -1 }),
	} {
		t.Run(name, func(t *testing.T) {
			h := cache.Hold(r)
			assert.Same(t, r, h.Record())
			assert.Equal(t, *r, h.Fields())
			assert.Equal(t, r.Authority, h.Authority())
			assert.Equal(t, r.FetchedAt, h.FetchedAt())
			assert.Equal(t, r.FreshUntil, h.FreshUntil())
			assert.Equal(t, r.Size(), h.Size())
			if r.Unreachable() {
				assert.Same(t, r, h.Outage())
			} else {
				assert.Nil(t, h.Outage())
			}
		})
	}

	var none cache.Held
	assert.Nil(t, none.Record())
	assert.Equal(t, cache.Record{}, none.Fields())
	assert.Empty(t, none.Authority())
	assert.Zero(t, none.FetchedAt())
	assert.Zero(t, none.FreshUntil())
	assert.Nil(t, none.Outage())
	assert.Zero(t, none.Size())
	assert.Equal(t, cache.Held{}, cache.Hold(nil))
}
