package client_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/client"
	"github.com/crawlkit/robots/usage"
)

// draft-ietf-aipref-attach-05 §2 and §3, vocab-07 §5.1: what robots.txt
// states for a URL and what the response's Content-Usage header states
// combine most restrictively, label by label.
func TestUsageCombinesRobotsAndHeader(t *testing.T) {
	srv := newServer(t, "User-agent: *\nAllow: /\nContent-Usage: train-ai=n\nContent-Usage: /open/ train-ai=y, search=y\n",
		func(w http.ResponseWriter, r *http.Request) bool {
			switch r.URL.Path {
			case "/open/page":
				w.Header().Add(usage.HeaderName, "search=n")
				w.Header().Add(usage.HeaderName, "ai-use=y")
			case "/moved":
				http.Redirect(w, r, "/open/moved", http.StatusFound)
				return true
			}
			return false
		})
	rc, err := robots.New(robots.Options{UserAgent: "TestBot/1.0"})
	require.NoError(t, err)
	hc := client.Wrap(srv.Client(), rc)

	tests := []struct {
		path                   string
		trainAI, search, aiUse usage.Pref
	}{
		{"/page", usage.No, usage.Unknown, usage.Unknown},       // the path-less rule
		{"/open/page", usage.Yes, usage.No, usage.Yes},          // the /open/ rule, and the header
		{"/moved", usage.Yes, usage.Yes, usage.Unknown},         // the final URL's rule (/open/moved)
		{"/robots.txt", usage.No, usage.Unknown, usage.Unknown}, // robots.txt's rules cover itself, as UsageBy reads them
	}
	for _, tt := range tests {
		resp, err := hc.Get(srv.URL + tt.path)
		require.NoError(t, err, tt.path)
		resp.Body.Close()
		p, err := client.Usage(rc, resp)
		require.NoError(t, err, tt.path)
		assert.Equal(t, tt.trainAI, p.Get(usage.TrainAI), tt.path)
		assert.Equal(t, tt.search, p.Get(usage.Search), tt.path)
		assert.Equal(t, tt.aiUse, p.Get(usage.AIUse), tt.path)
	}
}

func TestUsageRefusesWhatItCannotRead(t *testing.T) {
	rc, err := robots.New(robots.Options{UserAgent: "TestBot/1.0"})
	require.NoError(t, err)
	_, err = client.Usage(rc, nil)
	assert.ErrorIs(t, err, robots.ErrInvalidURL)
	_, err = client.Usage(rc, &http.Response{})
	assert.ErrorIs(t, err, robots.ErrInvalidURL)
	req, _ := http.NewRequest("GET", "https://user:secret@example.com/", nil)
	_, err = client.Usage(nil, &http.Response{Request: req})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "secret")
}

// The five readings that turn a stated n into y or unknown, documented on
// Usage and usage.Combine; each is what the drafts require, and each
// would surprise a crawler that reads "n" somewhere and stops there.
func TestUsageReadingsThatWeakenAnN(t *testing.T) {
	tests := []struct {
		name   string
		robots string   // the site's robots.txt
		path   string   // the page asked
		header []string // its Content-Usage lines
		want   usage.Pref
	}{
		// RFC 9651 §4.2, attach-05 §2: lines are one Dictionary and the
		// last value of a key wins (aipref.md readings 12 and 13).
		{"a later header line", "", "/p", []string{"train-ai=n", "train-ai=y"}, usage.Yes},
		{"a later member of one line", "", "/p", []string{"train-ai=n, train-ai=y"}, usage.Yes},
		// vocab-07 §6.5.1: a Dictionary that fails to parse states nothing;
		// an empty line leaves an empty member (reading 13).
		{"an empty header line", "", "/p", []string{"train-ai=n", ""}, usage.Unknown},
		{"a malformed header line", "", "/p", []string{"train-ai=n", "Search=y"}, usage.Unknown},
		// vocab-07 §6.4: only the tokens y and n count (reading 16).
		{"a value other than the token n", "", "/p", []string{`train-ai="n"`}, usage.Unknown},
		{"no for n", "", "/p", []string{"train-ai=no"}, usage.Unknown},
		// RFC 9309 §2.2.2 via attach-05 §3.1: the longest matching rule is
		// the whole statement (readings 9 and 11).
		{"a longer rule without the label", "User-agent: *\nContent-Usage: train-ai=n\nContent-Usage: /p search=y\n", "/p", nil, usage.Unknown},
		{"a longer rule that does not parse", "User-agent: *\nContent-Usage: train-ai=n\nContent-Usage: /p Train-AI=n\n", "/p", nil, usage.Unknown},
		// attach-05 §3: a URL that cannot be crawled has no preferences
		// from robots.txt (reading 4).
		{"a disallowed URL", "User-agent: *\nDisallow: /p\nContent-Usage: train-ai=n\n", "/p", nil, usage.Unknown},
		// And what never weakens an n: combining sources (vocab-07 §5.1).
		{"n in robots.txt, y in the header", "User-agent: *\nContent-Usage: train-ai=n\n", "/p", []string{"train-ai=y"}, usage.No},
		{"y in robots.txt, n in the header", "User-agent: *\nContent-Usage: train-ai=y\n", "/p", []string{"train-ai=n"}, usage.No},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, tt.robots, func(w http.ResponseWriter, r *http.Request) bool {
				for _, l := range tt.header {
					w.Header().Add(usage.HeaderName, l)
				}
				return false
			})
			rc := newRobots(t, srv.Client())
			resp, err := srv.Client().Get(srv.URL + tt.path) // not Wrap: it would refuse the disallowed URL
			require.NoError(t, err)
			resp.Body.Close()
			p, err := client.Usage(rc, resp)
			require.NoError(t, err)
			assert.Equal(t, tt.want, p.Get(usage.TrainAI))
		})
	}
}
