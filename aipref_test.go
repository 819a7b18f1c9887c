package robots_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/internal/sharedtest"
	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
	"github.com/crawlkit/robots/usage"
)

// aiprefVector is one vector of ../shared/conformance/aipref.json; its
// schema and the readings the vectors follow are in aipref.md there.
type aiprefVector struct {
	ID     string            `json:"id"`
	Source string            `json:"source"` // the draft section it comes from, or "derived: why"
	Robots *string           `json:"robots"`
	Agent  string            `json:"agent"`
	URL    string            `json:"url"`
	Header []string          `json:"header"`
	Expect map[string]string `json:"expect"`
	Note   string            `json:"note"`
}

func aiprefVectors(t *testing.T) []aiprefVector {
	b, err := os.ReadFile(filepath.Join(sharedtest.Dir(t, "conformance"), "aipref.json"))
	require.NoError(t, err)
	var vs []aiprefVector
	require.NoError(t, json.Unmarshal(b, &vs))
	require.Len(t, vs, 60, "aipref.md: 60 vectors in all")
	return vs
}

var prefOf = map[string]usage.Pref{"y": usage.Yes, "n": usage.No, "unknown": usage.Unknown}

// Every vector of aipref.json, evaluated as aipref.md says: UsageBy for
// robots, FromHeader (and Parse, for one line) for header, Combine for both.
// Each subtest is named by the vector's id and reports its source (the draft
// section, or why it is derived).
func TestAIPREFVectors(t *testing.T) {
	for _, v := range aiprefVectors(t) {
		t.Run(v.ID, func(t *testing.T) {
			msg := []any{"%s (%s) %s", v.ID, v.Source, v.Note}
			var got usage.Prefs
			switch {
			case v.Robots != nil && v.Header != nil:
				got = usage.Combine(robots.UsageBy([]byte(*v.Robots), v.Agent, v.URL), usage.FromHeader(header(v.Header)))
			case v.Robots != nil:
				got = robots.UsageBy([]byte(*v.Robots), v.Agent, v.URL)
			case v.Header != nil:
				got = usage.FromHeader(header(v.Header))
				if len(v.Header) == 1 {
					assert.Equal(t, got, usage.Parse(v.Header[0]), msg...)
				}
			default:
				t.Fatalf("vector %s has neither robots nor header", v.ID)
			}
			require.Len(t, v.Expect, 3, msg...)
			for label, want := range v.Expect {
				w, ok := prefOf[want]
				require.True(t, ok, "expect %q", want)
				assert.Equal(t, w, got.Get(label), append([]any{"%s: " + msg[0].(string), label}, msg[1:]...)...)
			}
		})
	}
}

func header(lines []string) http.Header {
	h := http.Header{}
	for _, l := range lines {
		h.Add(usage.HeaderName, l)
	}
	return h
}

// A Client answers Usage as UsageBy does, on every robots.txt vector of
// aipref.json, the file's own /robots.txt included: the file is fetched from
// a test site and asked about the vector's path.
func TestClientUsageAgreesWithUsageBy(t *testing.T) {
	asked := 0
	for _, v := range aiprefVectors(t) {
		if v.Robots == nil {
			continue
		}
		body := *v.Robots
		s := newSite(t, robotsTxt(body))
		rc := newClient(t, newClock(), robots.Options{Agents: []string{v.Agent}})
		u, err := url.Parse(v.URL)
		require.NoError(t, err, v.ID)
		for _, path := range []string{u.RequestURI(), "/robots.txt"} {
			want := robots.UsageBy([]byte(body), v.Agent, "https://example.com"+path)
			got, err := rc.Usage(context.Background(), s.URL+path)
			require.NoError(t, err, v.ID)
			assert.Equal(t, want, got, "%s: %s", v.ID, path)
			d, err := rc.Check(context.Background(), s.URL+path)
			require.NoError(t, err, v.ID)
			assert.Equal(t, want, d.Usage, "%s: Check, %s", v.ID, path)
			asked++
		}
	}
	require.Greater(t, asked, 40, "most vectors have a robots.txt")
}

// The file's own URL: always allowed, never disallowed by the file, and what
// the file states about it counts, even when every other path is refused
// (RFC 9309 §2.2.2; attach-05 §3). Allowed needs no fetch for it; Usage and
// Check read the file.
func TestUsageOfRobotsTxt(t *testing.T) {
	const body = "User-agent: *\nDisallow: /\nContent-Usage: train-ai=n\n"
	s := newSite(t, robotsTxt(body))
	rc := newClient(t, newClock(), robots.Options{})
	ctx := context.Background()

	ok, err := rc.Allowed(ctx, s.URL+"/robots.txt")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Zero(t, s.requests.Load(), "Allowed on /robots.txt fetches nothing")

	p, err := rc.Usage(ctx, s.URL+"/robots.txt")
	require.NoError(t, err)
	assert.Equal(t, usage.No, p.Get(usage.TrainAI))
	assert.Equal(t, robots.UsageBy([]byte(body), "TestBot", "https://example.com/robots.txt"), p)

	d, err := rc.Check(ctx, s.URL+"/robots.txt")
	require.NoError(t, err)
	assert.True(t, d.Allowed)
	assert.Equal(t, robots.RobotsTxt, d.Reason)
	assert.Equal(t, 3, d.UsageRule.Line)
	assert.Equal(t, 200, d.StatusCode)
	assert.Equal(t, int32(1), s.requests.Load(), "Usage and Check share one fetch")

	// A site whose robots.txt cannot be had: /robots.txt is still allowed,
	// with no preferences.
	down := newSite(t, statusCode(http.StatusServiceUnavailable))
	d, err = rc.Check(ctx, down.URL+"/robots.txt")
	require.NoError(t, err)
	assert.True(t, d.Allowed)
	assert.Equal(t, robots.RobotsTxt, d.Reason)
	assert.Equal(t, 503, d.StatusCode)
	assert.Equal(t, usage.Prefs{}, d.Usage)
	ok, err = rc.Allowed(ctx, down.URL+"/page")
	require.NoError(t, err)
	assert.False(t, ok, "RFC 9309 §2.3.1.4: unreachable, the rest is disallowed")
}

// Client.Signal reports the record that stated the signal, as
// matcher.Matcher.Signal does.
func TestClientSignalRecord(t *testing.T) {
	const body = "User-agent: *\nDisallow: /x\n\nUser-agent: TestBot\nAllow: /\nContent-Signal: search=yes, ai-train=no\n"
	s := newSite(t, robotsTxt(body))
	rc := newClient(t, newClock(), robots.Options{})
	sig, rec, err := rc.Signal(context.Background(), s.URL+"/")
	require.NoError(t, err)
	assert.Equal(t, usage.Signal{Search: usage.Yes, AITrain: usage.No}, sig)
	assert.Equal(t, 6, rec.Line)
	assert.Equal(t, "search=yes, ai-train=no", rec.Value)
	wantSig, wantRec := matcher.Compile(parser.Parse([]byte(body)), "TestBot").Signal()
	assert.Equal(t, wantSig, sig)
	assert.Equal(t, wantRec, rec)

	none := newSite(t, statusCode(http.StatusNotFound))
	sig, rec, err = rc.Signal(context.Background(), none.URL+"/")
	require.NoError(t, err)
	assert.Zero(t, sig)
	assert.Zero(t, rec)
}
