// Package cache holds what a robots.Client keeps of each authority's
// robots.txt in the forms that leave a process: to disk, in an export
// stream, and to other processes, through a Fleet.
//
// A Record is one authority's fetch outcome as plain data: where the fetch
// went, its status and what it means, the headers that matter, the file,
// how long it holds, and, during an outage, the failures so far and the last
// good copy. It encodes (MarshalBinary) and decodes defensively
// (UnmarshalBinary): hostile bytes give an error wrapping
// ErrMalformedRecord, never a panic or a large allocation. ReadStream reads
// the stream robots.Client.Export writes.
//
// A Fleet shares Records and fetch leases between the processes of a
// crawler, so that each robots.txt is fetched once for all of them and an
// authority's backoff holds for all of them (robots.Options.Fleet).
// MemoryFleet is one in the memory of a process; module redisfleet is one on
// Redis; package fleettest checks any implementation against the contract.
//
// Non-goals: the cache itself. The tiers, the fetch flights, the freshness
// and backoff policy and the clocks that use these types are the Client's
// engine, internal to the module; a crawler configures them through
// robots.Options and reads them through robots.Stats.
package cache
