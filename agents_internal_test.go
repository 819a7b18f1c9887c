package robots

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/internal/sharedtest"
)

// token returns the i-th of many distinct product tokens.
func token(i int) string {
	b := []byte("Bot")
	for {
		b = append(b, byte('a'+i%26))
		if i /= 26; i == 0 {
			return string(b)
		}
	}
}

// compiledOf returns what c holds for key, which must be cached.
func compiledOf(t *testing.T, c *Client, key string) *compiled {
	t.Helper()
	e, _, _, err := c.cache.Lookup(context.Background(), key)
	require.NoError(t, err)
	return e.Value
}

// The rules of an agent set are counted in the byte budget as they weigh,
// and go with their file; the rules kept per file are bounded in number,
// the oldest going first, so a caller cycling through agent sets leaves a
// file at most maxViews sets heavier, and the count stays exact.
func TestAgentRulesCounted(t *testing.T) {
	const key = "https://a.example"
	c := memClient(t, 1<<30)
	body := []byte("User-agent: *\nDisallow: /private/\n\nUser-agent: Bota\nUser-agent: Botb\nDisallow: /\n")
	require.NoError(t, c.put(key, c.record(key, body)))
	ctx := context.Background()
	bare := c.Stats().Bytes
	v := compiledOf(t, c, key)
	require.Nil(t, v.views.Load(), "no views before a Client made by As asks: most files are never asked")
	if unsafe.Sizeof(uintptr(0)) == 8 {
		assert.Equal(t, uintptr(32), unsafe.Sizeof(compiled{}), "an allocator class: every authority with rules holds one")
	}

	first, err := c.As(token(0))
	require.NoError(t, err)
	ok, err := first.Allowed(ctx, key+"/x")
	require.NoError(t, err)
	assert.False(t, ok, "Bota's group")
	require.Equal(t, 1, len(*v.views.Load().list.Load()))
	assert.Equal(t, bare+v.views.Load().size(), c.Stats().Bytes, "counted as they weigh")

	const sets = 300
	for i := 1; i < sets; i++ {
		vc, err := c.As(token(i))
		require.NoError(t, err)
		ok, err := vc.Allowed(ctx, key+"/private/x")
		require.NoError(t, err)
		assert.False(t, ok, "Botb's group and the * group both disallow it")
		assert.LessOrEqual(t, len(*v.views.Load().list.Load()), maxViews)
		assert.Equal(t, bare+v.views.Load().size(), c.Stats().Bytes, "the count is exact after %d sets", i+1)
	}
	assert.Equal(t, uint64(sets), c.Stats().AgentCompiles)
	assert.Nil(t, v.views.Load().find(agentSetOf([]string{token(0)})), "the oldest went")
	assert.NotNil(t, v.views.Load().find(agentSetOf([]string{token(sets - 1)})))

	// The same file fetched again keeps them: they hold for it.
	withViews := c.Stats().Bytes
	require.NoError(t, c.put(key, c.record(key, bytes.Clone(body))))
	assert.Same(t, v, compiledOf(t, c, key))
	assert.Equal(t, withViews, c.Stats().Bytes)

	// A new file comes with none of them, and the budget counts it alone.
	require.NoError(t, c.put(key, c.record(key, append(bytes.Clone(body), "Disallow: /more\n"...))))
	assert.Zero(t, compiledOf(t, c, key).views.Load().size())
	assert.Less(t, c.Stats().Bytes, bare+100)
}

// Rules too large to keep beside their file (more than a quarter of the
// budget) are compiled for each answer and never counted: growth never
// takes a file past the budget, which would drop it and have it fetched
// again. With a larger budget, the same rules are kept.
func TestAgentRulesTooLargeToKeep(t *testing.T) {
	const key = "https://hostile.example"
	for _, tt := range []struct {
		name   string
		budget int64
		kept   bool
	}{
		{"least budget", 1, false},
		{"default budget", DefaultCacheBytes, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := memClient(t, tt.budget)
			require.NoError(t, c.put(key, c.record(key, hostileFile(0))))
			ctx := context.Background()
			bare := c.Stats().Bytes
			v, err := c.As("OtherBot")
			require.NoError(t, err)
			for range 2 {
				ok, err := v.Allowed(ctx, key+"/0-0")
				require.NoError(t, err)
				assert.True(t, ok)
			}
			n := compiledOf(t, c, key).views.Load().size()
			if tt.kept {
				assert.Equal(t, uint64(1), c.Stats().AgentCompiles)
				assert.Positive(t, n)
				assert.Equal(t, bare+n, c.Stats().Bytes)
			} else {
				assert.Equal(t, uint64(2), c.Stats().AgentCompiles, "compiled for each answer")
				assert.Equal(t, int64(unsafe.Sizeof(views{})), n, "no rules kept, only their empty list")
				assert.Equal(t, bare+n, c.Stats().Bytes)
			}
			st := c.cache.Stats()
			assert.Equal(t, 1, st.Entries, "the file stays")
			assert.LessOrEqual(t, st.Bytes, st.Budget)
		})
	}
}

// A caller cycling through thousands of agent sets over many files keeps
// the cache within its budget, and the heap with it: the rules of agent
// sets are counted, and evict, as files do.
func TestAgentSetsWithinBudget(t *testing.T) {
	files := corpusFiles(t)
	c := memClient(t, 1) // the least budget: 16 times the body cap
	ctx := context.Background()
	const sets, keys = 4500, 400
	var compiles uint64
	_, heap := sharedtest.Memory(func() {
		for i := range sets {
			k := i % keys
			key := fmt.Sprintf("https://host-%d.example", k)
			if c.cache.Held(key) == nil {
				body := slices.Clone(files[k*len(files)/keys]) // on the heap measured
				require.NoError(t, c.put(key, c.record(key, body)))
			}
			v, err := c.As(token(i))
			require.NoError(t, err)
			_, err = v.Allowed(ctx, key+"/some/page")
			require.NoError(t, err)
			if st := c.cache.Stats(); st.Bytes > st.Budget {
				t.Fatalf("after %d sets: %d bytes counted, over the budget of %d", i+1, st.Bytes, st.Budget)
			}
		}
		compiles = c.Stats().AgentCompiles
	})
	runtime.KeepAlive(c)
	runtime.KeepAlive(files) // the corpus is not what fn kept
	st := c.cache.Stats()
	t.Logf("%d agent sets over %d files: %d compiled, %d held, %.1f MB counted of %.1f, heap %.1f MB, %d evictions",
		sets, keys, compiles, st.Entries, float64(st.Bytes)/1e6, float64(st.Budget)/1e6, float64(heap)/1e6, st.Evictions)
	assert.Positive(t, st.Evictions)
	assert.GreaterOrEqual(t, compiles, uint64(sets))
	assert.Less(t, heap, st.Budget+4<<20, "the heap stays within the budget and a small constant")
	assert.EqualValues(t, 16*fetch.DefaultMaxBytes, st.Budget)
}
