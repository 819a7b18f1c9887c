package status

import (
	"net/http"
	"testing"
)

// FuzzRetryAfter: whatever the header says, the hint is absent or within
// the clamp, and parsing never panics.
func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{
		"120",                           // delay-seconds
		"0",                             // now
		"99999999999999999999999999999", // overflow
		"Wed, 21 Oct 2026 09:28:00 GMT", // IMF-fixdate
		"Wednesday, 21-Oct-26 09:28:00 GMT",
		"Wed Oct 21 09:28:00 2026",
		"-1", "1e3", " 7 ", "", "\x00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		r := result(503, "")
		r.Header = http.Header{"Retry-After": {v}}
		got := Classify(r, now).RetryAfter
		if got.IsZero() {
			return
		}
		if got.Before(now.Add(MinRetryAfter)) || got.After(now.Add(MaxRetryAfter)) {
			t.Fatalf("Retry-After %q gives %v, outside [now+%v, now+%v]", v, got, MinRetryAfter, MaxRetryAfter)
		}
	})
}
