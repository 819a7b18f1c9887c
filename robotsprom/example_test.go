package robotsprom_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/robotsprom"
)

// A crawler's Client, its figures served on /metrics for Prometheus to
// scrape.
func ExampleNewCollector() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "User-agent: *\nDisallow: /private/\n")
	}))
	defer site.Close()

	rc, err := robots.New(robots.Options{UserAgent: "ExampleBot/1.0 (+https://example.com/bot)"})
	if err != nil {
		log.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(robotsprom.NewCollector(rc))
	metrics := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer metrics.Close()

	for _, path := range []string{"/", "/private/a", "/b"} {
		rc.Allowed(context.Background(), site.URL+path)
	}

	resp, err := http.Get(metrics.URL)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		if line := lines.Text(); strings.HasPrefix(line, "robots_answers_total") || strings.HasPrefix(line, "robots_fetches_total") {
			fmt.Println(line)
		}
	}
	// Output:
	// robots_answers_total{result="hit"} 2
	// robots_answers_total{result="miss"} 1
	// robots_answers_total{result="stale"} 0
	// robots_fetches_total 1
}
