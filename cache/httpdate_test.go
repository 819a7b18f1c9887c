package cache

import (
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// RFC 9110 §5.6.7: an IMF-fixdate is packed as its time only when
// formatting that time gives the value back, octet for octet.
func TestFixdate(t *testing.T) {
	for _, tt := range []struct {
		v  string
		ok bool
	}{
		{"Sun, 06 Nov 1994 08:49:37 GMT", true}, // RFC 9110's example
		{"Fri, 27 Nov 2026 14:00:00 GMT", true},
		{"Thu, 01 Jan 1970 00:00:00 GMT", true},
		{"Wed, 31 Dec 1969 23:59:59 GMT", true}, // before 1970: a negative varint
		{"Mon, 01 Jan 0001 00:00:00 GMT", true},
		{"Fri, 31 Dec 9999 23:59:59 GMT", true},
		{"Mon, 06 Nov 1994 08:49:37 GMT", false}, // the wrong weekday
		{"Sun, 6 Nov 1994 08:49:37 GMT", false},  // one digit
		{"sun, 06 Nov 1994 08:49:37 GMT", false},
		{"Sun, 06 nov 1994 08:49:37 GMT", false},
		{"Sun, 06 Nov 1994 08:49:37 UTC", false},
		{"Sun, 06 Nov 1994 08:49:60 GMT", false}, // a leap second
		{"Sun, 06 Nov 1994 24:00:00 GMT", false},
		{"Tue, 30 Feb 2027 00:00:00 GMT", false},  // a day February lacks
		{"Sunday, 06-Nov-94 08:49:37 GMT", false}, // RFC 850
		{"Sun Nov  6 08:49:37 1994", false},       // asctime
		{"Sun, 06 Nov 1994 08:49:37 GMT ", false},
		{"Sun, 06 Nov 1994 08:4x:37 GMT", false},
		{"Sun, 06 Nov +994 08:49:37 GMT", false},
		{"", false},
	} {
		sec, ok := fixdate(tt.v)
		assert.Equal(t, tt.ok, ok, tt.v)
		if ok {
			assert.Equal(t, tt.v, string(appendFixdate(nil, sec)), tt.v)
			want, err := http.ParseTime(tt.v)
			require.NoError(t, err)
			assert.Equal(t, want.Unix(), sec)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 10_000 {
		at := time.Unix(rng.Int64N(1<<36)-1<<35, 0).UTC()
		if at.Year() < 0 || at.Year() > 9999 {
			continue
		}
		v := at.Format(http.TimeFormat)
		sec, ok := fixdate(v)
		require.True(t, ok, v)
		require.Equal(t, at.Unix(), sec, v)
	}
}

// A date header packs in six octets and reads back as it was sent.
func TestDatePacked(t *testing.T) {
	require.Less(t, len(KeptHeaders), dateTag, "a header's index leaves dateTag's bit free")
	h := http.Header{"Date": {"Fri, 27 Nov 2026 14:00:00 GMT"}, "Last-Modified": {"Mon, 02 Nov 2026 10:00:00 GMT"},
		"Expires": {"0"}, "Etag": {`"x"`}}
	z := packHeader(h)
	assert.Len(t, z, 2*6+(1+1+1)+(1+1+3))
	got := http.Header{}
	forHeaders(z, func(k string, v []byte) { got[k] = append(got[k], string(v)) })
	assert.Equal(t, h, got)
}

func FuzzFixdate(f *testing.F) {
	f.Add("Sun, 06 Nov 1994 08:49:37 GMT")
	f.Add("Tue, 29 Feb 2028 23:59:59 GMT")
	f.Add("Tue, 30 Feb 2027 00:00:00 GMT")
	f.Fuzz(func(t *testing.T, v string) {
		sec, ok := fixdate(v)
		if !ok {
			return
		}
		if got := string(appendFixdate(nil, sec)); got != v {
			t.Fatalf("%q packs as %d, which reads back as %q", v, sec, got)
		}
	})
}
