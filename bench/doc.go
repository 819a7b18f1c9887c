// Package bench compares github.com/crawlkit/robots with the other Go
// robots.txt libraries, github.com/temoto/robotstxt and
// github.com/jimsmart/grobotstxt, on the same inputs in one run: the
// library's own benchmark cases (internal/benchdata) and the published
// conformance vectors. It is a module of its own so that the library's
// go.mod names none of them.
//
//	go test -run '^$' -bench . -benchmem | go run ./cmd/ratios
//
// prints the table of ratios the README shows.
package bench
