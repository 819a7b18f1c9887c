package robots_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/internal/sharedtest"
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
