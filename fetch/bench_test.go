package fetch_test

import (
	"context"
	"strings"
	"testing"

	"github.com/crawlkit/robots/fetch"
)

// BenchmarkFetch measures whole fetches from a loopback server. B/op shows
// the memory bound: for the 10 MB body and for the gzip bomb (1 GiB decoded)
// a fetch allocates a little more than the 500 KiB cap, not what the server
// sends.
func BenchmarkFetch(b *testing.B) {
	bomb, _ := bombServer(b, line)
	cases := []struct {
		name string
		url  string
	}{
		{"small", serve(b, text(200, rules)).URL},
		{"10MB", serve(b, text(200, strings.Repeat(line, 10_000_000/len(line)))).URL},
		{"gzip-bomb-1GiB", bomb.URL},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			f := newFetcher(b, fetch.Config{})
			b.ReportAllocs()
			var n int64
			for b.Loop() {
				res, err := f.Fetch(context.Background(), c.url+"/robots.txt", fetch.Validators{})
				if err != nil || res.Err != nil {
					b.Fatal(err, res.Err)
				}
				n = int64(len(res.Body))
			}
			b.SetBytes(n)
		})
	}
}
