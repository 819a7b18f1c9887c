package redisfleet

import "github.com/crawlkit/robots/cache"

// Encode returns the value f stores for rec, for tests that plant values.
func Encode(f *Fleet, rec *cache.Record) ([]byte, error) { return f.codec.encode(rec) }
