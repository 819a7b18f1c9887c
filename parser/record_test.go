package parser

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/internal/benchdata"
	"github.com/crawlkit/robots/internal/sharedtest"
)

// scannedTwice parses body as Parse did before it recorded lines: with room
// for no record, the storing pass scans the whole body again. It is the
// oracle of the records.
func scannedTwice(body []byte) *Robots {
	return parse(body, &recording{}, nil)
}

// sameWithFewerRecords checks that Parse gives what scanning twice gives,
// and so does a recording that fills up after a few lines, so that the
// storing pass switches from the records to the body at every kind of line.
func sameWithFewerRecords(t *testing.T, name string, body []byte) bool {
	t.Helper()
	want := scannedTwice(body)
	if !assert.Equal(t, want, Parse(body), "%s", name) {
		return false
	}
	for _, limit := range []int{1, 2, 7} {
		if !assert.Equal(t, want, parse(body, &recording{limit: limit}, nil), "%s, %d records", name, limit) {
			return false
		}
	}
	return true
}

// The records hold everything the storing pass needs of a line: Parse
// gives the same Robots, warnings and all, with them as without them, on
// every file of the real corpus, every shape of the memory tests and random
// bodies of the pieces that make lines differ.
func TestRecordsChangeNothing(t *testing.T) {
	for name, body := range sharedtest.Corpus(t) {
		if !sameWithFewerRecords(t, name, body) {
			return
		}
	}
	for _, s := range benchdata.Shapes() {
		for _, size := range []int{100, 5000, 100 << 10} {
			if !sameWithFewerRecords(t, s.Name, s.Body(size)) {
				return
			}
		}
	}
	pieces := []string{
		"user-agent", "User-Agent", "useragent", "allow", "disallow", "Disallowed", "dissallow", "sitemap",
		"site-map", "crawl-delay", "content-usage", "Content-Signal", "host", "clean-param", "x", "\xEF\xBB\xBFk",
		":", ": ", " ", "\t", "/", "/a", "*", "#", "\x00", "\xff", "é", "\uFEFF", "\xEF\xBB",
		"\n", "\n", "\r", "\r\n", "1", "0.5", "train-ai=n", "search=yes, ai-train=no", "a=y,b=n", ",", "X", " /p t=n",
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 20_000 {
		n := 1 + rng.IntN(40)
		if i%1000 == 0 {
			n = 20_000 // past MaxWarnings and MaxOther
		}
		var b []byte
		for range n {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
		if !sameWithFewerRecords(t, "random", b) {
			return
		}
	}
	long := strings.Repeat("/", MaxLineLength)
	for _, body := range []string{
		"user-agent: a\nallow: " + long + "\ndisallow: /x",
		"user-agent: a\n" + long + ": v\n" + long + " v\nsitemap: " + long + long,
		"\xEF\xBBuser-agent: a\n\xff\ndisallow: /x\x00y\n",
	} {
		if !sameWithFewerRecords(t, "long", []byte(body)) {
			return
		}
	}
}

// A recording grows to what a body needs, up to maxRecords, whatever the
// body, so that neither a Parse nor what it leaves for the next holds more;
// one that was used for a body as large does not grow again, and none keeps
// anything of the body.
func TestRecordingBounded(t *testing.T) {
	small := []byte("User-agent: *\nDisallow: /a\n")
	rec := &recording{limit: maxRecords}
	require.Equal(t, scannedTwice(small), parse(small, rec, nil))
	assert.Equal(t, minRecords, cap(rec.records), "a small body takes the least room")

	for _, body := range [][]byte{
		append([]byte("User-agent: *\n"), bytes.Repeat([]byte("Disallow: /a\n"), 3*maxRecords)...),
		bytes.Repeat([]byte("User-agent: a\rDisallow: /x\r"), 32<<20/27),
		bytes.Repeat([]byte("a\n"), 1<<20),
	} {
		rec := &recording{limit: maxRecords}
		parse(body, rec, nil)
		assert.Equal(t, maxRecords, cap(rec.records))
		assert.True(t, rec.full, "a body of more lines that matter than records is scanned again")
		first := &rec.records[0]
		rec.records, rec.full, rec.rest = rec.records[:0], false, scanner{}
		parse(body, rec, nil)
		assert.Same(t, first, &rec.records[0], "a recording used for the body does not grow again")
		rec.free()
		assert.Zero(t, rec.rest, "a recording keeps nothing of the body")
		assert.Empty(t, rec.records)
	}
}
