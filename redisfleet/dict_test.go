package redisfleet

import (
	"crypto/sha1"
	"encoding/hex"
	"flag"
	"fmt"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/klauspost/compress/dict"
	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/internal/sharedtest"
	"github.com/crawlkit/robots/status"
)

var update = flag.Bool("update", false, "rebuild records.dict from the corpus")

// corpusRecords returns the records a Client makes of the corpus's files,
// each under a host name of its own, with the headers a real response
// carries; every step-th file.
func corpusRecords(t testing.TB, step int) []*cache.Record {
	files := sharedtest.CorpusSample(t, step)
	if len(files) == 0 {
		t.Skip("the corpus is absent (see above)")
	}
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	recs := make([]*cache.Record, len(files))
	for i, b := range files {
		b = b[:min(len(b), 500<<10)] // the default body cap
		key := fmt.Sprintf("https://www.host-%d.example", i)
		r := &cache.Record{Authority: key, URL: key + "/robots.txt", FinalURL: key + "/robots.txt", StatusCode: 200,
			Class: status.Success, Outcome: "200 OK: rules",
			Header: http.Header{"Date": {now.Format(http.TimeFormat)}, "Cache-Control": {"max-age=86400"},
				"Etag": {fmt.Sprintf(`"%x-5f3a%d"`, len(b), i)}, "Last-Modified": {now.Add(-time.Duration(i) * time.Hour).Format(http.TimeFormat)}},
			Body: b, FetchedAt: now, FreshUntil: now.Add(24 * time.Hour)}
		if len(b) == 0 {
			r.Class, r.StatusCode, r.Body = status.Empty, 200, nil
		}
		recs[i] = r
	}
	return recs
}

// The dictionary is trained on the records of the corpus's files (those
// of 32 KiB at most: the trainer's limit; 99% of them). With -update, it is
// rebuilt (training is not deterministic: the new one differs); otherwise it
// must be the very dictionary of this layout, since records compressed with
// one decompress with no other.
func TestDictionary(t *testing.T) {
	if *update {
		var samples [][]byte
		for _, r := range corpusRecords(t, 1) {
			b, err := r.MarshalBinary()
			require.NoError(t, err)
			if len(b) <= 32<<10 {
				samples = append(samples, b)
			}
		}
		d, err := dict.BuildZstdDict(samples, dict.Options{MaxDictSize: 32 << 10, HashBytes: 6, ZstdDictID: dictID})
		require.NoError(t, err)
		require.NoError(t, os.WriteFile("records.dict", d, 0o644))
		dictionary = d
		t.Logf("records.dict: %d bytes from %d records", len(d), len(samples))
	}
	h, err := zstd.InspectDictionary(dictionary)
	require.NoError(t, err)
	assert.Equal(t, uint32(dictID), h.ID(), "the dictionary of layout %s", layout)
	sum := sha1.Sum(dictionary)
	assert.Equal(t, dictSum, hex.EncodeToString(sum[:]),
		"records.dict is not layout %s's: a new dictionary takes a new layout (and dictSum)", layout)
}
