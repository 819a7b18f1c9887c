package robotsprom

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/crawlkit/robots"
)

// Every test leaves no goroutine behind: a refresh the Client ran in the
// background has ended by the time its test does.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// exported names the metric, by name and labels, that exports each field
// of robots.Stats, and its type. A field added to Stats without a metric
// fails TestEveryFigureExported: add the metric to figures, then here.
var exported = map[string]struct {
	metric string
	kind   dto.MetricType
}{
	"Hits":           {`robots_answers_total{result="hit"}`, dto.MetricType_COUNTER},
	"Misses":         {`robots_answers_total{result="miss"}`, dto.MetricType_COUNTER},
	"StaleAnswers":   {`robots_answers_total{result="stale"}`, dto.MetricType_COUNTER},
	"Fetches":        {`robots_fetches_total`, dto.MetricType_COUNTER},
	"FetchErrors":    {`robots_fetch_errors_total{class="dns"}`, dto.MetricType_COUNTER}, // the test's one class
	"Entries":        {`robots_cache_entries`, dto.MetricType_GAUGE},
	"Bytes":          {`robots_cache_bytes`, dto.MetricType_GAUGE},
	"Evictions":      {`robots_cache_evictions_total`, dto.MetricType_COUNTER},
	"Outages":        {`robots_outages`, dto.MetricType_GAUGE},
	"QueuedFetches":  {`robots_queued_fetches`, dto.MetricType_GAUGE},
	"FleetHits":      {`robots_fleet_hits_total`, dto.MetricType_COUNTER},
	"FleetErrors":    {`robots_fleet_errors_total`, dto.MetricType_COUNTER},
	"FleetFallbacks": {`robots_fleet_fallbacks_total`, dto.MetricType_COUNTER},
	"LeasesLost":     {`robots_fleet_leases_lost_total`, dto.MetricType_COUNTER},
	"FleetDown":      {`robots_fleet_down`, dto.MetricType_GAUGE},
	"Panics":         {`robots_panics_total`, dto.MetricType_COUNTER},
	"Observed":       {`robots_observed_total`, dto.MetricType_COUNTER},
	"Imported":       {`robots_imported_total`, dto.MetricType_COUNTER},
	"ExportSkipped":  {`robots_export_skipped_total`, dto.MetricType_COUNTER},
	"AgentCompiles":  {`robots_agent_compiles_total`, dto.MetricType_COUNTER},
}

// sample is one gathered value and its metric's type.
type sample struct {
	value float64
	kind  dto.MetricType
}

// gather registers c on a pedantic registry, which checks what Collect
// sends against what Describe said, and returns every sample by
// `name{label="value",…}`.
func gather(t *testing.T, c prometheus.Collector) map[string]sample {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(c))
	families, err := reg.Gather()
	require.NoError(t, err)
	got := map[string]sample{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			key := f.GetName()
			if len(m.GetLabel()) > 0 {
				var labels []string
				for _, l := range m.GetLabel() {
					labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
				}
				key += "{" + strings.Join(labels, ",") + "}"
			}
			var v float64
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				v = m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				v = m.GetGauge().GetValue()
			default:
				t.Fatalf("%s is a %s", key, f.GetType())
			}
			got[key] = sample{v, f.GetType()}
		}
	}
	return got
}

// Every field of robots.Stats is a metric: each field in turn is given a
// value of its own, every other left zero, and that value must come out of
// its metric and no other.
func TestEveryFigureExported(t *testing.T) {
	fields := reflect.VisibleFields(reflect.TypeFor[robots.Stats]())
	for i, field := range fields {
		t.Run(field.Name, func(t *testing.T) {
			want, ok := exported[field.Name]
			require.True(t, ok, "robots.Stats.%s has no metric: add one to robotsprom's figures and to exported", field.Name)
			var s robots.Stats
			f := reflect.ValueOf(&s).Elem().FieldByIndex(field.Index)
			v := float64(100 + i)
			switch f.Kind() {
			case reflect.Uint, reflect.Uint64:
				f.SetUint(uint64(v))
			case reflect.Int, reflect.Int64:
				f.SetInt(int64(v))
			case reflect.Bool:
				f.SetBool(true)
				v = 1
			case reflect.Map:
				m := reflect.MakeMap(f.Type())
				m.SetMapIndex(reflect.ValueOf("dns"), reflect.ValueOf(uint64(v)))
				f.Set(m)
			default:
				t.Fatalf("robots.Stats.%s is a %s: teach robotsprom and this test to export it", field.Name, f.Type())
			}
			got := gather(t, &collector{stats: func() robots.Stats { return s }})
			require.Contains(t, got, want.metric)
			assert.Equal(t, sample{v, want.kind}, got[want.metric])
			for key, smp := range got {
				if key != want.metric {
					assert.Zero(t, smp.value, "%s, with only Stats.%s set", key, field.Name)
				}
			}
		})
	}

	// And no metric but those: with every figure set, what is gathered
	// is what exported names.
	var s robots.Stats
	s.FetchErrors = map[string]uint64{"dns": 1}
	var want []string
	for _, e := range exported {
		want = append(want, e.metric)
	}
	got := gather(t, &collector{stats: func() robots.Stats { return s }})
	assert.ElementsMatch(t, want, slices.Collect(maps.Keys(got)))
}

// Each class of fetch error is a sample of its own, and the names, help
// texts and types pass Prometheus's linter.
func TestLint(t *testing.T) {
	s := robots.Stats{FetchErrors: map[string]uint64{"status": 3, "dns": 1, "body cut short": 2}}
	c := &collector{stats: func() robots.Stats { return s }}
	got := gather(t, c)
	assert.Equal(t, sample{3, dto.MetricType_COUNTER}, got[`robots_fetch_errors_total{class="status"}`])
	assert.Equal(t, sample{1, dto.MetricType_COUNTER}, got[`robots_fetch_errors_total{class="dns"}`])
	assert.Equal(t, sample{2, dto.MetricType_COUNTER}, got[`robots_fetch_errors_total{class="body cut short"}`])
	problems, err := testutil.CollectAndLint(c)
	require.NoError(t, err)
	assert.Empty(t, problems)
}

func TestNewCollectorNil(t *testing.T) {
	assert.PanicsWithValue(t, "robotsprom: NewCollector of a nil *robots.Client", func() { NewCollector(nil) })
}

// clock is a fake clock the test moves.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// serve starts a server that answers /robots.txt with status and body.
func serve(t *testing.T, status int, body string) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=3600")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}

// A real Client, driven against httptest sites, as a scrape sees it: the
// figures are read afresh at every Collect.
func TestClient(t *testing.T) {
	const robotsTxt = "User-agent: *\nDisallow: /private/\n"
	site := serve(t, http.StatusOK, robotsTxt)
	observed := serve(t, http.StatusOK, robotsTxt)
	down := serve(t, http.StatusServiceUnavailable, "")
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close() // connections to it are refused

	clk := &clock{now: time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)}
	fetched := make(chan string, 16)
	rc, err := robots.New(robots.Options{
		UserAgent: "ExampleBot/1.0",
		Now:       clk.Now,
		Logger:    slog.New(slog.DiscardHandler),
		OnFetch: func(e robots.FetchEvent) {
			fetched <- e.Authority
			if e.Authority == down.URL {
				panic("a hook that fails")
			}
		},
	})
	require.NoError(t, err)
	c := NewCollector(rc)
	require.NoError(t, testutil.CollectAndCompare(c, strings.NewReader(`
# HELP robots_fetches_total robots.txt fetches the Client made over HTTP.
# TYPE robots_fetches_total counter
robots_fetches_total 0
`), "robots_fetches_total", "robots_fetch_errors_total"))

	ctx := context.Background()
	for _, q := range []struct {
		url     string
		fetches bool
	}{
		{site.URL + "/a", true},          // a miss: fetched
		{site.URL + "/private/x", false}, // a hit
		{down.URL + "/a", true},          // a miss: 503, and OnFetch panics
		{gone.URL + "/a", true},          // a miss: refused
	} {
		_, err := rc.Allowed(ctx, q.url)
		require.NoError(t, err)
		if q.fetches {
			<-fetched // sent before the answer: it is there
		}
	}
	resp, err := http.Get(observed.URL + "/robots.txt")
	require.NoError(t, err)
	require.NoError(t, rc.Observe(observed.URL+"/robots.txt", resp))
	train, err := rc.As("TrainBot")
	require.NoError(t, err)
	_, err = train.Allowed(ctx, site.URL+"/a") // a hit, and a compilation for TrainBot
	require.NoError(t, err)
	clk.advance(2 * time.Hour)
	_, err = rc.Allowed(ctx, site.URL+"/a") // stale: answered while refetched
	require.NoError(t, err)
	assert.Equal(t, site.URL, <-fetched, "the refetch is done")

	// Four entries: the two sites fetched or observed, and what the fetches
	// of the two unreachable ones said (disallow all, for now: RFC 9309
	// §2.3.1.4), which are outages too.
	require.NoError(t, testutil.CollectAndCompare(c, strings.NewReader(`
# HELP robots_answers_total Answers the robots.txt Client gave, by result: hit (a fresh cached robots.txt, or the backoff of a site whose entry was evicted), miss (the answer waited for a fetch or for the fleet; every caller waiting on one fetch counts), stale (an expired robots.txt answered while its refetch ran).
# TYPE robots_answers_total counter
robots_answers_total{result="hit"} 2
robots_answers_total{result="miss"} 3
robots_answers_total{result="stale"} 1
# HELP robots_fetches_total robots.txt fetches the Client made over HTTP.
# TYPE robots_fetches_total counter
robots_fetches_total 4
# HELP robots_fetch_errors_total robots.txt fetches that left the site unreachable, by class: "status" for a 429, a 5xx or a status outside 200-599, otherwise the transport failure's class (dns, refused, timeout, ...).
# TYPE robots_fetch_errors_total counter
robots_fetch_errors_total{class="refused"} 1
robots_fetch_errors_total{class="status"} 1
# HELP robots_cache_entries Sites cached now, with their robots.txt or with what its fetch said (an unreachable site's too).
# TYPE robots_cache_entries gauge
robots_cache_entries 4
# HELP robots_outages Sites whose robots.txt cannot be fetched now, whose backoff (and last good copy) the Client keeps.
# TYPE robots_outages gauge
robots_outages 2
# HELP robots_panics_total Panics contained (of the OnFetch hook, of a transport, of the fleet); each decision was made regardless.
# TYPE robots_panics_total counter
robots_panics_total 1
# HELP robots_observed_total robots.txt responses taken from the crawler with Observe.
# TYPE robots_observed_total counter
robots_observed_total 1
# HELP robots_agent_compiles_total robots.txt files compiled for the crawler names of Clients made by As.
# TYPE robots_agent_compiles_total counter
robots_agent_compiles_total 1
# HELP robots_fleet_down 1 while the fleet is skipped after failing three times in a row (probed once per interval), else 0.
# TYPE robots_fleet_down gauge
robots_fleet_down 0
`), "robots_answers_total", "robots_fetches_total", "robots_fetch_errors_total", "robots_cache_entries",
		"robots_outages", "robots_panics_total", "robots_observed_total", "robots_agent_compiles_total", "robots_fleet_down"))

	got := gather(t, c)
	assert.Equal(t, float64(rc.Stats().Bytes), got["robots_cache_bytes"].value)
	assert.Positive(t, got["robots_cache_bytes"].value)
}
