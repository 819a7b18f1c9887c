package redisfleet_test

import (
	"context"
	"log"

	"github.com/redis/go-redis/v9"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/redisfleet"
)

// A crawler process of a fleet: every process that shares the Redis (or
// the Cluster) fetches each robots.txt once for all of them.
func Example() {
	// ContextTimeoutEnabled: a command past its deadline stops waiting on
	// the connection too (redisfleet returns in time either way).
	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379", ContextTimeoutEnabled: true}) // or redis.NewClusterClient
	defer rdb.Close()
	rc, err := robots.New(robots.Options{
		UserAgent: "ExampleBot/1.0 (+https://example.com/bot)",
		Fleet:     redisfleet.New(rdb, redisfleet.Options{}),
	})
	if err != nil {
		log.Fatal(err)
	}
	ok, err := rc.Allowed(context.Background(), "https://example.com/some/page")
	if err != nil {
		log.Fatal(err) // an invalid URL or ctx's error; never Redis's
	}
	_ = ok
	// rc.Stats().FleetHits: records taken from Redis; FleetErrors and
	// FleetFallbacks: what Redis could not do, fetched locally instead.
}
