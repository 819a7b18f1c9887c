package usage_test

import (
	"net/http"
	"testing"

	"github.com/crawlkit/robots/usage"
)

// Values as sites write them.
var benchValues = []struct{ name, value string }{
	{"typical", "train-ai=n, search=y"},
	{"three", "train-ai=n, search=y, ai-use=n"},
	{"params", `train-ai=n;reason="policy";v=2, search=y`},
	{"extra-label", "train-ai=n, search=y, future-label=n"},
	{"malformed", "search=y, Train-ai=n"},
}

func BenchmarkParse(b *testing.B) {
	for _, v := range benchValues {
		b.Run(v.name, func(b *testing.B) {
			b.SetBytes(int64(len(v.value)))
			b.ReportAllocs()
			for b.Loop() {
				usage.Parse(v.value)
			}
		})
	}
}

func BenchmarkGet(b *testing.B) {
	p := usage.Parse("train-ai=n, search=y, ai-use=y, bots=n, future-label=n")
	for _, l := range []string{usage.TrainAI, usage.AIUse, "future-label", "unstated"} {
		b.Run(l, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.Get(l)
			}
		})
	}
}

func BenchmarkFromHeader(b *testing.B) {
	for _, lines := range [][]string{{"train-ai=n, search=y"}, {"train-ai=n", "search=y"}} {
		h := http.Header{"Content-Usage": lines}
		b.Run(string(rune('0'+len(lines)))+"-lines", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				usage.FromHeader(h)
			}
		})
	}
}

func BenchmarkCombine(b *testing.B) {
	robots, hdr := usage.Parse("train-ai=y, search=y"), usage.Parse("train-ai=n")
	b.ReportAllocs()
	for b.Loop() {
		usage.Combine(robots, hdr)
	}
}

func BenchmarkParseSignal(b *testing.B) {
	const v = "search=yes, ai-train=no, ai-input=no"
	b.SetBytes(int64(len(v)))
	b.ReportAllocs()
	for b.Loop() {
		usage.ParseSignal(v)
	}
}

func BenchmarkValidate(b *testing.B) {
	const v = "train-ai=n, search=y"
	b.ReportAllocs()
	for b.Loop() {
		usage.Validate(v)
	}
}

// BenchmarkFromHeaderHostile reads each hostile 10 MiB Content-Usage header
// (hostileHeaders): at most 300 ms and 64 MiB each.
func BenchmarkFromHeaderHostile(b *testing.B) {
	for _, h := range hostileHeaders(headerCap) {
		size := headerSize(h.header)
		b.Run(h.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				usage.FromHeader(h.header)
			}
		})
	}
}
