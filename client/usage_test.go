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
		{"/page", usage.No, usage.Unknown, usage.Unknown},            // the path-less rule
		{"/open/page", usage.Yes, usage.No, usage.Yes},               // the /open/ rule, and the header
		{"/moved", usage.Yes, usage.Yes, usage.Unknown},              // the final URL's rule (/open/moved)
		{"/robots.txt", usage.Unknown, usage.Unknown, usage.Unknown}, // robots.txt itself states nothing
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
