package robots_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots"
)

// 1,000 cold authorities asked by 10,000 goroutines at once: exactly one
// fetch each, every answer right, and nothing left running (TestMain).
func TestManyColdAuthorities(t *testing.T) {
	const hosts, goroutines = 1000, 10_000
	var mu sync.Mutex
	perHost := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		perHost[r.Host]++
		mu.Unlock()
		// Each host disallows its own name, so answers cannot be crossed.
		fmt.Fprintf(w, "User-agent: *\nDisallow: /%s\n", strings.TrimSuffix(r.Host, ":80"))
	}))
	t.Cleanup(srv.Close)
	rt, hc := newRouter(t)
	for i := 0; i < hosts; i++ {
		rt.route(fmt.Sprintf("h%d.test:80", i), hostOf(srv))
	}
	// 1,000 fetches at once under -race on a busy 2-core machine can take
	// longer than the tests' usual 5 s; the time limit is not what is under
	// test here, and a fetch that ran out of it would read as an outage.
	c := newClient(t, newClock(), robots.Options{HTTPClient: hc, FetchTimeout: 2 * time.Minute})

	start := make(chan struct{})
	var wg sync.WaitGroup
	wrong := make(chan string, goroutines)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			<-start
			h := fmt.Sprintf("h%d.test", g%hosts)
			own, err1 := c.Allowed(context.Background(), "http://"+h+"/"+h)
			other, err2 := c.Allowed(context.Background(), "http://"+h+"/elsewhere")
			if err1 != nil || err2 != nil || own || !other {
				wrong <- fmt.Sprintf("%s: %v %v %v %v", h, own, other, err1, err2)
			}
		}(g)
	}
	close(start)
	wg.Wait()
	close(wrong)
	for w := range wrong {
		t.Error(w)
	}
	require.Len(t, perHost, hosts)
	for h, n := range perHost {
		assert.Equal(t, 1, n, h)
	}
	st := c.Stats()
	assert.Equal(t, uint64(hosts), st.Fetches)
	assert.Equal(t, hosts, st.Entries)
	assert.Equal(t, uint64(2*goroutines), st.Hits+st.Misses)
}
