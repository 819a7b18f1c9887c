package authority

import (
	"net/url"
	"testing"
)

var benchURLs = []struct{ name, url string }{
	{"canonical", "https://example.com/some/page?q=1"},
	{"uppercase-host", "https://Example.com/some/page?q=1"},
	{"port-userinfo-space", "HTTPS://user@Example.com:0443/some page?q=1"},
	{"ipv6", "http://[2001:db8::1]:8080/some/page"},
	{"idn", "https://www.exämple.com/some/page"},
}

var sink Authority

// BenchmarkParse measures Parse on typical URLs; BenchmarkNetURLParse is the
// baseline to compare it with in the same run.
func BenchmarkParse(b *testing.B) {
	for _, bu := range benchURLs {
		b.Run(bu.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bu.url)))
			for b.Loop() {
				a, err := Parse(bu.url)
				if err != nil {
					b.Fatal(err)
				}
				sink = a
			}
		})
	}
}

var urlSink *url.URL

func BenchmarkNetURLParse(b *testing.B) {
	for _, bu := range benchURLs {
		b.Run(bu.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bu.url)))
			for b.Loop() {
				u, err := url.Parse(bu.url)
				if err != nil {
					b.Fatal(err)
				}
				urlSink = u
			}
		})
	}
}
