package robots

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// Stats counts what a Client has done since New. Every answer counts once,
// as a hit, a miss or a stale answer.
type Stats struct {
	// Hits counts answers from a fresh cached entry, or from the backoff
	// of an authority whose entry was evicted.
	Hits uint64
	// Misses counts answers that waited: for a fetch, or for a record from
	// the Fleet. Callers waiting on one shared fetch each count.
	Misses uint64
	// StaleAnswers counts answers given from an expired entry while its
	// refetch ran.
	StaleAnswers uint64
	// Fetches counts the robots.txt fetches this Client made (HTTP).
	Fetches uint64
	// FetchErrors counts fetches that left the authority unreachable, by
	// class: a transport failure's class ("dns", "timeout", …) or "status"
	// for a 429, a 5xx, or any other status outside 200–599.
	FetchErrors map[string]uint64

	// Entries is the number of authorities cached now, and Bytes what they
	// weigh (see Options.CacheBytes).
	Entries int
	Bytes   int64
	// Evictions counts entries evicted to make room.
	Evictions uint64
	// Outages is the number of authorities whose robots.txt cannot be
	// fetched now, whose backoff (and last good copy) the Client remembers
	// apart from their entries (see Options.MaxOutages).
	Outages int
	// QueuedFetches is the number of robots.txt fetches waiting now for
	// one of the MaxConcurrentFetches slots.
	QueuedFetches int

	// FleetHits counts records taken from the Fleet instead of fetched.
	FleetHits uint64
	// FleetErrors counts Fleet operations that failed or panicked, and
	// records from it that could not be trusted.
	FleetErrors uint64
	// FleetFallbacks counts fetches made because the Fleet failed, or
	// because another process's fetch never came.
	FleetFallbacks uint64
	// LeasesLost counts fetches whose Fleet lease ran out before their
	// record was published; the record published by another stays.
	LeasesLost uint64
	// FleetDown reports that the Fleet failed three times in a row and is
	// skipped now (a circuit breaker): new authorities are fetched locally,
	// counted in FleetFallbacks, but for one probe of the Fleet per interval
	// (1 s, doubling to 30 s while it keeps failing). One success ends it.
	FleetDown bool

	// Panics counts panics contained: of Options.OnFetch, of a transport,
	// of the Fleet. Each is logged; the decision is made regardless.
	Panics uint64
	// Observed and Imported count the records taken from Observe and
	// Import, Imported once per authority.
	Observed, Imported uint64
	// ExportSkipped counts records Export left out because they did not
	// encode, each logged. Records are made within what encodes: it stays
	// zero unless that fails.
	ExportSkipped uint64

	// AgentCompiles counts the robots.txt files compiled for the agents
	// of Clients made by As (see Client.As): once per agent set per file
	// cached, more only when a file cannot keep every set's rules.
	AgentCompiles uint64
}

// striped is a counter that many goroutines add to without contending on
// one cache line: each add goes to a stripe picked by the address of the
// goroutine's stack.
type striped struct {
	stripes [8]struct {
		n atomic.Uint64
		_ [56]byte // one stripe per cache line
	}
}

func (s *striped) add() {
	// Goroutines have stacks of their own: the address of a local tells
	// them apart, a goroutine keeps its stripe at a given depth, and it
	// costs nothing, where a random number cost a tenth of a cache hit.
	// The address is hashed (Fibonacci hashing: its top three bits after a
	// multiply by 2^64/φ), because stacks that grew are aligned to their
	// size: their low bits are alike, and picking by them put every
	// goroutine of a crawler on one or two stripes (TestStripesSpread,
	// BenchmarkHits).
	var here byte
	s.stripes[uint64(uintptr(unsafe.Pointer(&here)))*0x9E3779B97F4A7C15>>61].n.Add(1)
}

func (s *striped) load() uint64 {
	var n uint64
	for i := range s.stripes {
		n += s.stripes[i].n.Load()
	}
	return n
}

// counters are a Client's running counts. Hits are striped: every cache
// hit adds one, from every goroutine.
type counters struct {
	hits                                                                             striped
	misses, stale, fetches, panics, observed, imported, agentCompiles, exportSkipped atomic.Uint64
	mu                                                                               sync.Mutex
	errors                                                                           map[string]uint64
}

func (c *counters) fetchError(class string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.errors == nil {
		c.errors = map[string]uint64{}
	}
	c.errors[class]++
}
