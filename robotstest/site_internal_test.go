package robotstest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// errorsTB records what AssertObeyed reports.
type errorsTB struct {
	testing.TB // nil: calling anything else panics
	errors     []string
}

func (t *errorsTB) Helper() {}

func (t *errorsTB) Errorf(format string, args ...any) {
	t.errors = append(t.errors, fmt.Sprintf(format, args...))
}

// discard is a ResponseWriter that keeps nothing.
type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}

// A crawler caught in a loop fails its test instead of exhausting its
// memory. The bound is lowered: a hundred thousand requests take seconds
// under the race detector.
func TestMaxRequests(t *testing.T) {
	s := NewSite(t, "")
	require.Equal(t, MaxRequests, s.limit)
	s.limit = 100
	req := httptest.NewRequest("GET", "/robots.txt", nil)
	for range s.limit + 5 {
		s.serve(discard{}, req)
	}
	w := httptest.NewRecorder()
	s.serve(w, httptest.NewRequest("GET", "/robots.txt", nil))
	assert.Equal(t, http.StatusOK, w.Code, "answered, though not recorded")
	assert.Len(t, s.Requests(), 100)
	assert.Empty(t, s.Violations("FooBot"))
	var rec errorsTB
	assert.False(t, s.AssertObeyed(&rec, "FooBot"))
	require.Len(t, rec.errors, 1)
	assert.True(t, strings.HasSuffix(rec.errors[0],
		"\n\t6 requests past the first 100 (MaxRequests) were not judged"), rec.errors[0])
}
