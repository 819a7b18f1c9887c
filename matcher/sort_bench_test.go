package matcher

import (
	"testing"

	"github.com/crawlkit/robots/internal/benchdata"
	"github.com/crawlkit/robots/parser"
)

// BenchmarkSortEntries measures sortEntries alone on the entries of the
// trie-compiled files of the real corpus, for one crawler per op.
func BenchmarkSortEntries(b *testing.B) {
	files, _ := benchdata.Corpus()
	if files == nil {
		b.Skip("corpus not found")
	}
	type set struct {
		entries []entry
		text    string
	}
	var sets []set
	most := 0
	for _, f := range files {
		r := parser.Parse(f)
		groups, _ := selectGroups(r, names([]string{"ExampleBot"}), nil, nil)
		k := 0
		for _, g := range groups {
			k += len(g.Rules)
		}
		if k <= smallRules {
			continue
		}
		sc := new(scratch)
		text, _, _, _, _ := compileTrie(groups, k, 0, sc)
		sets = append(sets, set{append([]entry(nil), sc.entries...), string(text)})
		most = max(most, len(sc.entries))
	}
	buf := make([]entry, most)
	var recs []sortRec
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range sets {
			e := buf[:len(s.entries)]
			copy(e, s.entries)
			recs = sortEntries(e, s.text, recs)
		}
	}
}
