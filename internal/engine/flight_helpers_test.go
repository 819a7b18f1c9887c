package engine

// Waiters returns the number of callers waiting for the flight running for
// key now, 0 when none runs: a test knows that the callers it started have
// joined the flight. Exported for the package's external tests.
func (c *Cache[V]) Waiters(key string) int {
	if fl := c.flightOf(key); fl != nil {
		return int(fl.waiters.Load())
	}
	return 0
}
