// Package robotsprom exports what a robots.Client has done, its Stats, as
// Prometheus metrics (github.com/prometheus/client_golang): a
// prometheus.Collector that reads the Client's figures at every scrape, as
// client_golang's own collectors read the Go runtime's. It starts nothing
// and holds nothing between scrapes.
//
//	rc, err := robots.New(robots.Options{UserAgent: "ExampleBot/1.0 (+https://example.com/bot)"})
//	prometheus.MustRegister(robotsprom.NewCollector(rc))
//
// Every figure of robots.Stats is a metric, named robots_…, counters with a
// _total suffix:
//
//	robots_answers_total{result="hit"|"miss"|"stale"}  counter  Stats.Hits, Misses, StaleAnswers
//	robots_fetches_total                               counter  Stats.Fetches
//	robots_fetch_errors_total{class}                   counter  Stats.FetchErrors
//	robots_cache_entries                               gauge    Stats.Entries
//	robots_cache_bytes                                 gauge    Stats.Bytes
//	robots_cache_evictions_total                       counter  Stats.Evictions
//	robots_outages                                     gauge    Stats.Outages
//	robots_queued_fetches                              gauge    Stats.QueuedFetches
//	robots_fleet_hits_total                            counter  Stats.FleetHits
//	robots_fleet_errors_total                          counter  Stats.FleetErrors
//	robots_fleet_fallbacks_total                       counter  Stats.FleetFallbacks
//	robots_fleet_leases_lost_total                     counter  Stats.LeasesLost
//	robots_fleet_down                                  gauge    Stats.FleetDown, 1 or 0
//	robots_panics_total                                counter  Stats.Panics
//	robots_observed_total                              counter  Stats.Observed
//	robots_imported_total                              counter  Stats.Imported
//	robots_export_skipped_total                        counter  Stats.ExportSkipped
//	robots_agent_compiles_total                        counter  Stats.AgentCompiles
//
// Every answer counts once in robots_answers_total, so its sum is the
// number of questions answered and hits over the sum is the hit ratio. A
// class of fetch error appears once a fetch has failed that way: "status"
// for a 429, a 5xx or a status outside 200–599, otherwise the class of the
// transport's failure ("dns", "refused", "timeout", …).
//
// Clients made by Client.As share the Stats of the Client they were made
// from: register one of them. For several independent Clients in one
// registry, register each through prometheus.WrapRegistererWith with a
// label that tells them apart.
//
// Non-goals: histograms of fetch times or per-site figures (Options.OnFetch
// reports every fetch, with its authority, for those), and a metric for a
// robots.txt verdict, which is no measure of the Client.
package robotsprom

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/crawlkit/robots"
)

// NewCollector returns a prometheus.Collector that exports rc's Stats, read
// afresh at every Collect, as the metrics listed in the package
// documentation. rc must not be nil: NewCollector panics if it is.
func NewCollector(rc *robots.Client) prometheus.Collector {
	if rc == nil {
		panic("robotsprom: NewCollector of a nil *robots.Client")
	}
	return &collector{stats: rc.Stats}
}

// collector reads the figures from stats: rc.Stats, or a test's.
type collector struct {
	stats func() robots.Stats
}

// figure is one number of Stats, as a metric.
type figure struct {
	desc   *prometheus.Desc
	kind   prometheus.ValueType
	value  func(*robots.Stats) float64
	labels []string // the values of desc's variable labels
}

var (
	answersDesc = prometheus.NewDesc("robots_answers_total",
		"Answers the robots.txt Client gave, by result: hit (a fresh cached robots.txt, or the backoff of a site "+
			"whose entry was evicted), miss (the answer waited for a fetch or for the fleet; every caller waiting "+
			"on one fetch counts), stale (an expired robots.txt answered while its refetch ran).",
		[]string{"result"}, nil)
	fetchErrorsDesc = prometheus.NewDesc("robots_fetch_errors_total",
		"robots.txt fetches that left the site unreachable, by class: \"status\" for a 429, a 5xx or a status "+
			"outside 200-599, otherwise the transport failure's class (dns, refused, timeout, ...).",
		[]string{"class"}, nil)
)

// figures are the metrics of Stats but FetchErrors, whose labels are the
// classes seen, in the order Describe gives them.
var figures = []figure{
	{answersDesc, prometheus.CounterValue, func(s *robots.Stats) float64 { return float64(s.Hits) }, []string{"hit"}},
	{answersDesc, prometheus.CounterValue, func(s *robots.Stats) float64 { return float64(s.Misses) }, []string{"miss"}},
	{answersDesc, prometheus.CounterValue, func(s *robots.Stats) float64 { return float64(s.StaleAnswers) }, []string{"stale"}},
	{
		prometheus.NewDesc("robots_fetches_total", "robots.txt fetches the Client made over HTTP.", nil, nil),
		prometheus.CounterValue, func(s *robots.Stats) float64 { return float64(s.Fetches) }, nil,
	},
	{
		prometheus.NewDesc("robots_cache_entries", "Sites cached now, with their robots.txt or with what its fetch said (an unreachable site's too).", nil, nil),
		prometheus.GaugeValue, func(s *robots.Stats) float64 { return float64(s.Entries) }, nil,
	},
	{
		prometheus.NewDesc("robots_cache_bytes",
			"What the cached robots.txt files, their compiled rules and their bookkeeping weigh in memory now, "+
				"as the cache's byte bound counts them.", nil, nil),
		prometheus.GaugeValue, func(s *robots.Stats) float64 { return float64(s.Bytes) }, nil,
	},
	{
		prometheus.NewDesc("robots_cache_evictions_total", "Cached robots.txt files evicted to make room.", nil, nil),
		prometheus.CounterValue, func(s *robots.Stats) float64 { return float64(s.Evictions) }, nil,
	},
	{
		prometheus.NewDesc("robots_outages",
			"Sites whose robots.txt cannot be fetched now, whose backoff (and last good copy) the Client keeps.", nil, nil),
		prometheus.GaugeValue, func(s *robots.Stats) float64 { return float64(s.Outages) }, nil,
	},
	{
		prometheus.NewDesc("robots_queued_fetches",
			"robots.txt fetches waiting now for a slot under the bound on concurrent fetches.", nil, nil),
		prometheus.GaugeValue, func(s *robots.Stats) float64 { return float64(s.QueuedFetches) }, nil,
	},
	{
		prometheus.NewDesc("robots_fleet_hits_total", "robots.txt records taken from the fleet instead of fetched.", nil, nil),
		prometheus.CounterValue, func(s *robots.Stats) float64 { return float64(s.FleetHits) }, nil,
	},
	{
		prometheus.NewDesc("robots_fleet_errors_total",
			"Fleet operations that failed or panicked, and records from the fleet that could not be trusted.", nil, nil),
		prometheus.CounterValue, func(s *robots.Stats) float64 { return float64(s.FleetErrors) }, nil,
	},
	{
		prometheus.NewDesc("robots_fleet_fallbacks_total",
			"robots.txt fetches made because the fleet failed or another process's fetch never came.", nil, nil),
		prometheus.CounterValue, func(s *robots.Stats) float64 { return float64(s.FleetFallbacks) }, nil,
	},
	{
		prometheus.NewDesc("robots_fleet_leases_lost_total",
			"robots.txt fetches whose fleet lease ran out before their record was published.", nil, nil),
		prometheus.CounterValue, func(s *robots.Stats) float64 { return float64(s.LeasesLost) }, nil,
	},
	{
		prometheus.NewDesc("robots_fleet_down",
			"1 while the fleet is skipped after failing three times in a row (probed once per interval), else 0.", nil, nil),
		prometheus.GaugeValue, func(s *robots.Stats) float64 {
			if s.FleetDown {
				return 1
			}
			return 0
		}, nil,
	},
	{
		prometheus.NewDesc("robots_panics_total",
			"Panics contained (of the OnFetch hook, of a transport, of the fleet); each decision was made regardless.", nil, nil),
		prometheus.CounterValue, func(s *robots.Stats) float64 { return float64(s.Panics) }, nil,
	},
	{
		prometheus.NewDesc("robots_observed_total", "robots.txt responses taken from the crawler with Observe.", nil, nil),
		prometheus.CounterValue, func(s *robots.Stats) float64 { return float64(s.Observed) }, nil,
	},
	{
		prometheus.NewDesc("robots_imported_total", "Sites whose robots.txt record was taken from Import.", nil, nil),
		prometheus.CounterValue, func(s *robots.Stats) float64 { return float64(s.Imported) }, nil,
	},
	{
		prometheus.NewDesc("robots_export_skipped_total", "Records Export left out because they did not encode.", nil, nil),
		prometheus.CounterValue, func(s *robots.Stats) float64 { return float64(s.ExportSkipped) }, nil,
	},
	{
		prometheus.NewDesc("robots_agent_compiles_total",
			"robots.txt files compiled for the crawler names of Clients made by As.", nil, nil),
		prometheus.CounterValue, func(s *robots.Stats) float64 { return float64(s.AgentCompiles) }, nil,
	},
}

// Describe sends the descriptions of every metric the collector exports.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	var last *prometheus.Desc
	for _, f := range figures {
		if f.desc != last { // the answers are one metric with three labels
			ch <- f.desc
			last = f.desc
		}
	}
	ch <- fetchErrorsDesc
}

// Collect reads the Client's Stats and sends them as metrics.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	s := c.stats()
	for _, f := range figures {
		ch <- prometheus.MustNewConstMetric(f.desc, f.kind, f.value(&s), f.labels...)
	}
	for class, n := range s.FetchErrors {
		ch <- prometheus.MustNewConstMetric(fetchErrorsDesc, prometheus.CounterValue, float64(n), class)
	}
}
