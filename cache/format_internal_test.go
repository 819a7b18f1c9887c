package cache

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/internal/sharedtest"
)

// Each codec compresses a body in the format it says: BalancedBodies with
// the vocabulary below balancedZstd octets and with zstd from it on, and a
// value of no codec as BalancedBodies.
func TestCodecFormats(t *testing.T) {
	line := []byte("User-agent: *\nDisallow: /private/\nAllow: /wp-admin/admin-ajax.php\n")
	bodyOf := func(n int) []byte { return bytes.Repeat(line, n/len(line)+1)[:n] }
	for _, c := range []struct {
		codec BodyCodec
		n     int
		want  format
	}{
		{BalancedBodies, 1, vocabFormat},
		{BalancedBodies, 500, vocabFormat},
		{BalancedBodies, balancedZstd - 1, vocabFormat},
		{BalancedBodies, balancedZstd, zstdFormat},
		{BalancedBodies, 200 << 10, zstdFormat},
		{BodyCodec(7), balancedZstd - 1, vocabFormat},
		{BodyCodec(7), balancedZstd, zstdFormat},
		{FastBodies, 1, s2Format},
		{FastBodies, 200 << 10, s2Format},
		{SmallBodies, 1, zstdFormat},
		{SmallBodies, balancedZstd - 1, zstdFormat},
	} {
		body := bodyOf(c.n)
		r := (&Record{Body: body}).CompactWith(nil, c.codec)
		_, f := r.zbody()
		assert.Equal(t, c.want, f, "codec %d, %d octets", c.codec, c.n)
		assert.Equal(t, body, r.File(), "codec %d, %d octets", c.codec, c.n)
		assert.Equal(t, c.n, r.BodyLen())
	}
}

// The vocabulary makes the small files of the real-world corpus smaller
// than s2 alone does: 15% over the files under balancedZstd octets (19%
// measured), more for the smallest. A vocabulary that no block referred
// to, or a Balanced codec that did not use it, would fail this.
func TestVocabularyShrinksSmallFiles(t *testing.T) {
	files := sharedtest.CorpusSample(t, 1)
	if len(files) == 0 {
		return // CorpusSample said why
	}
	var plain, vocab int
	for _, body := range files {
		if len(body) >= balancedZstd {
			continue
		}
		fast, balanced := (&Record{Body: body}).CompactWith(nil, FastBodies), (&Record{Body: body}).CompactWith(nil, BalancedBodies)
		fb, _ := fast.zbody()
		vb, f := balanced.zbody()
		require.Equal(t, vocabFormat, f)
		plain += len(fb)
		vocab += len(vb)
	}
	t.Logf("corpus files under %d octets: %d octets with s2, %d against the vocabulary", balancedZstd, plain, vocab)
	assert.Less(t, vocab, plain*85/100)

	// A file made of the vocabulary's own lines compresses to a few
	// octets a line.
	wp := []byte("User-agent: *\nDisallow: /wp-admin/\nAllow: /wp-admin/admin-ajax.php\n\nSitemap: https://www.example.com/sitemap.xml\n")
	vb, _ := (&Record{Body: wp}).CompactWith(nil, BalancedBodies).zbody()
	fb, _ := (&Record{Body: wp}).CompactWith(nil, FastBodies).zbody()
	assert.Less(t, len(vb), len(fb)/3, "%d octets against the vocabulary, %d with s2", len(vb), len(fb))
}

// Any block appendVocab makes, s2's decoder reads back as the block's
// octets, with the vocabulary as its dictionary: for files of the corpus,
// for the vocabulary's own lines, and for what the fuzzer finds.
func FuzzVocab(f *testing.F) {
	// Seeds of at most 8 KiB: the fuzzer minimizes each input it finds
	// new, which for the corpus's largest files took most of its time.
	for _, body := range sharedtest.CorpusSample(f, 25) {
		f.Add(body[:min(len(body), 8<<10)])
	}
	f.Add(copyPastOffset64K())
	f.Add([]byte(vocabulary))
	f.Add([]byte(vocabulary[len(vocabulary)-40:] + vocabulary[:100]))
	f.Add(bytes.Repeat([]byte("a"), 300))
	f.Add([]byte("Disallow: /wp-admin/Disallow: /wp-admin/"))
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) == 0 || len(src) >= maxVocabBody {
			return // a body of none is not compressed; longer ones are zstd's
		}
		block := appendVocab([]byte("prefix"), src)
		require.Equal(t, "prefix", string(block[:6]), "appended")
		got, err := vocabularyDict().Decode(nil, block[6:])
		require.NoError(t, err)
		require.Equal(t, src, got)
	})
}

// copyPastOffset64K is a block whose copies from the vocabulary begin past
// 64 KiB of output, at offsets that need s2's five-octet form, each split
// in pieces of 64 octets at most.
func copyPastOffset64K() []byte {
	return append(bytes.Repeat([]byte{0}, 63000), vocabulary[:200]...)
}

// Blocks of the shapes the corpus has none of read back whole.
func TestVocabEdges(t *testing.T) {
	for _, src := range [][]byte{
		[]byte("a"), []byte("abcd"), []byte("abcde"), []byte("Allow: /"),
		bytes.Repeat([]byte("x"), 70), bytes.Repeat([]byte("xy"), 1000),
		[]byte(vocabulary), []byte(vocabulary[len(vocabulary)-7:]),
		copyPastOffset64K(), bytes.Repeat([]byte(vocabulary), maxVocabBody/len(vocabulary)+1)[:maxVocabBody-1],
	} {
		got, err := vocabularyDict().Decode(nil, appendVocab(nil, src))
		require.NoError(t, err, "%d octets", len(src))
		require.True(t, bytes.Equal(src, got), "%d octets", len(src))
	}
}

// Every corpus file, cut to what appendVocab takes, reads back whole; in
// all, its blocks are smaller than s2's own against the vocabulary.
func TestVocabRoundTripsTheCorpus(t *testing.T) {
	files := sharedtest.CorpusSample(t, 1)
	if len(files) == 0 {
		return // CorpusSample said why
	}
	var ours, theirs int
	for _, body := range files {
		body = body[:min(len(body), maxVocabBody-1)]
		block := appendVocab(nil, body)
		got, err := vocabularyDict().Decode(nil, block)
		require.NoError(t, err)
		require.True(t, bytes.Equal(body, got))
		ours += len(block)
		theirs += len(vocabularyDict().Encode(nil, body))
	}
	t.Logf("%d corpus files: %d octets in appendVocab's blocks, %d in s2's", len(files), ours, theirs)
	assert.Less(t, ours, theirs)
}
