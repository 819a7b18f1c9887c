package matcher

import (
	"runtime"

	"github.com/crawlkit/robots/internal/urlpath"
	"github.com/crawlkit/robots/parser"
)

// MatchIndexed is Match with every wildcard rule searched through the path
// index, for tests that compare it with the direct search.
func (m *Matcher) MatchIndexed(path string) Result {
	c := *m // shares m's arrays, which are immutable
	if c.trie != nil && c.trie.wild != nil {
		s := *c.trie
		w := *s.wild
		w.direct = 0
		s.wild = &w
		c.trie = &s
	}
	return c.Match(path)
}

// SetIndexKnobs sets the base of the path index's hashes (1 makes every
// anagram collide) and the number of look-ups after which a literal gets a
// table, and returns a function that restores them.
func SetIndexKnobs(base uint64, after int32) (restore func()) {
	if base == 0 {
		base = hashBase
	}
	oldBase, oldAfter := hashBase, tableAfter
	hashBase, tableAfter = base, after
	return func() { hashBase, tableAfter = oldBase, oldAfter }
}

// DirectBudget is how many octets of path the direct search of the
// wildcard patterns may scan in one check.
const DirectBudget = directBudget

// Steps returns the steps of work a check of path takes on m (see
// patternSet.bestSteps): a count that tests bound where a timer would
// depend on the machine.
func (m *Matcher) Steps(path string) int {
	_, steps := m.bestSteps(urlpath.Path(pathOf(path)))
	return steps
}

// CompileTrie is Compile with every set of rules compiled into the trie,
// however small, for tests that compare the two forms.
func CompileTrie(r *parser.Robots, agents ...string) *Matcher {
	return compile(r, -1, agents...)
}

// CompileSmall is Compile with every set of rules that fits compiled
// small, for tests that compare the two forms.
func CompileSmall(r *parser.Robots, agents ...string) *Matcher {
	return compile(r, 1<<30, agents...)
}

// IsSmall reports whether m was compiled small.
func (m *Matcher) IsSmall() bool { return m.small != nil }

// WithoutScratchPool runs fn with compiling keeping no scratch between
// compiles, and the scratch kept before collected, so that a measure of
// the heap within fn counts what fn keeps, not what the pool keeps or
// drops (under -race, sync.Pool drops what it is given at random).
func WithoutScratchPool(fn func()) {
	poolScratch = false
	defer func() { poolScratch = true }()
	runtime.GC() // the pool's items move to its victim cache,
	runtime.GC() // and are collected
	fn()
}

// TrieNodes returns the number of nodes of m's trie, the sentinel
// included; 0 for a small set.
func (m *Matcher) TrieNodes() int {
	if m.trie == nil {
		return 0
	}
	return len(m.trie.nodes)
}

// SetBlocksAlways makes every trie compiled until restore is called count
// its nodes from blocks, as a large one does, however small.
func SetBlocksAlways() (restore func()) {
	old := directNodes
	directNodes = 0
	return func() { directNodes = old }
}

// firstChild returns the first child of node n, as the walk counts it.
func (s *patternSet) firstChild(n int32) int32 {
	c := int32(uint32(s.nodes[n].child) >> nodeFlags)
	if s.blocks == nil {
		return c
	}
	return int32(s.blocks[uint32(n)/blockNodes].child) + c
}
