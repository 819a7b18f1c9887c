package robots

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// Stats counts what a Client has done since New.
type Stats struct {
	// Hits counts answers from a fresh cached entry.
	Hits uint64
	// Misses counts answers that needed a fetch: the authority was not
	// cached, or its entry had expired. Callers waiting on one shared fetch
	// each count.
	Misses uint64
	// Fetches counts robots.txt fetches made.
	Fetches uint64
	// FetchErrors counts fetches that left the authority unreachable, by
	// class: a transport failure's class ("dns", "timeout", …) or "status"
	// for a 429, 5xx or odd status.
	FetchErrors map[string]uint64
	// Entries is the number of authorities cached now.
	Entries int
	// Evictions counts entries evicted to make room, when the Store counts
	// them (the default one does).
	Evictions uint64
}

// striped is a counter that many goroutines add to without contending on
// one cache line: each add goes to a random stripe.
type striped struct {
	stripes [8]struct {
		n atomic.Uint64
		_ [56]byte // one stripe per cache line
	}
}

func (s *striped) add() { s.stripes[rand.Uint32()%8].n.Add(1) }

func (s *striped) load() uint64 {
	var n uint64
	for i := range s.stripes {
		n += s.stripes[i].n.Load()
	}
	return n
}

// counters are a Client's running counts.
type counters struct {
	hits, misses striped
	fetches      atomic.Uint64
	mu           sync.Mutex
	errors       map[string]uint64
}

func (c *counters) fetchError(class string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.errors == nil {
		c.errors = map[string]uint64{}
	}
	c.errors[class]++
}
