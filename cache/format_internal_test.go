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
// than s2 alone does: 10% over the files under balancedZstd octets (12%
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
	assert.Less(t, vocab, plain*90/100)

	// A file made of the vocabulary's own lines compresses to a few
	// octets a line.
	wp := []byte("User-agent: *\nDisallow: /wp-admin/\nAllow: /wp-admin/admin-ajax.php\n\nSitemap: https://www.example.com/sitemap.xml\n")
	vb, _ := (&Record{Body: wp}).CompactWith(nil, BalancedBodies).zbody()
	fb, _ := (&Record{Body: wp}).CompactWith(nil, FastBodies).zbody()
	assert.Less(t, len(vb), len(fb)/3, "%d octets against the vocabulary, %d with s2", len(vb), len(fb))
}
