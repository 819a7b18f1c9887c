package robots

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
)

// As returns a Client that answers every question for the crawler known by
// the names agents instead of c's: the groups naming any of them
// apply, merged, and with none of them named the "*" groups, as for
// Options.Agents (RFC 9309 §2.2.1). Everything else it shares with c: the
// cache and its byte budget, the robots.txt fetches (one per authority
// serves every Client of one New), their backoff, the Fleet, the Stats and
// the Options. A crawler that fetches for several purposes, say search and
// AI training under two names, makes a Client per purpose once
// and asks each question of the one for its purpose.
//
// The rules for agents are compiled from a cached robots.txt the first time
// the file answers for them; concurrent first questions wait for that one
// compilation. They are kept beside the file, counted in
// Options.CacheBytes, and go with it when it is evicted or refetched with a
// new body. From then on the answers cost what c's do: Allowed on a cache
// hit allocates nothing. Agent sets are told apart ignoring case and order.
// A file keeps the rules of at most 16 sets besides its own, within a
// quarter of CacheBytes, the oldest compiled going first: a set that comes
// back after that is compiled again, and one whose rules alone exceed the
// quarter is compiled for every answer. Stats.AgentCompiles counts the
// compilations.
//
// agents are crawler names, as in Options.Agents: HTTP tokens, such as
// ExampleBot or MJ12bot, at most MaxAgents. None, too many, or one that is
// not a name gives an *Error wrapping ErrInvalidAgent. The set of c's
// Options gives a Client that answers from the rules compiled with each
// file, as c does.
func (c *Client) As(agents ...string) (*Client, error) {
	if !c.made() {
		return nil, &Error{Op: "as", Err: errNotNew}
	}
	if err := validAgents(agents); err != nil {
		return nil, &Error{Op: "as", Err: err}
	}
	v := &Client{core: c.core, agents: slices.Clone(agents)}
	if set := agentSetOf(agents); set != c.core.ownSet {
		v.set = set
	}
	return v, nil
}

// MaxAgents is the most names a Client answers for (Options.Agents, As):
// compiling a file costs in proportion to the names times its user-agent
// lines, and a crawler has a name or a few (its own, its family's).
const MaxAgents = 16

// validAgents reports why agents cannot name a crawler, if they cannot.
func validAgents(agents []string) error {
	if len(agents) == 0 {
		return fmt.Errorf("%w: none given", ErrInvalidAgent)
	}
	if len(agents) > MaxAgents {
		return fmt.Errorf("%w: %d names, over %d", ErrInvalidAgent, len(agents), MaxAgents)
	}
	for _, a := range agents {
		switch {
		case strings.Contains(a, "*"):
			return fmt.Errorf("%w: %q: '*' names no crawler (a crawler that no group names obeys the \"*\" groups)", ErrInvalidAgent, a)
		case !parser.IsValidName(a):
			return fmt.Errorf("%w: %q is not a name (an HTTP token: letters, digits and !#$%%&'+-.^_`|~)", ErrInvalidAgent, a)
		}
	}
	return nil
}

// agentSet is a set of crawler names in a canonical form: lower case,
// sorted, each once, joined by commas. Two sets select the same groups
// exactly when their forms are equal, since tokens are compared ignoring
// case (RFC 9309 §2.2.1) and the groups of all of them merge.
type agentSet string

// agentSetOf returns the canonical form of the valid tokens agents.
func agentSetOf(agents []string) agentSet {
	toks := make([]string, len(agents))
	for i, a := range agents {
		toks[i] = strings.ToLower(a)
	}
	slices.Sort(toks)
	return agentSet(strings.Join(slices.Compact(toks), ","))
}

// Bounds of the rules a compiled file keeps for agent sets of Clients made
// by As.
const (
	// maxViews is the most agent sets whose rules a file keeps: a crawler
	// has a few purposes, and a caller cycling through sets must not make
	// a file hold a list it searches on every answer.
	maxViews = 16
	// viewShare is the share of the byte budget those rules may take per
	// file, as a divisor. A file and the rules compiled with it take less
	// than half of the least budget (16 times the body cap; see
	// TestCacheBytesBounds): a quarter more still fits, so growth never
	// drops the file itself, which would have it fetched again.
	viewShare = 4
)

// views are a compiled file's rules for agent sets other than its own,
// compiled when first asked for. Reads take no lock and allocate nothing.
type views struct {
	mu   sync.Mutex             // serializes compilations: each set compiles once
	list atomic.Pointer[[]view] // oldest first; replaced whole, never changed
}

// view is the rules of one agent set.
type view struct {
	set   agentSet
	rules *matcher.Matcher
}

// cost is what w weighs, beside the slot that holds it.
func (w *view) cost() int64 { return int64(len(w.set)) + w.rules.Size() }

// find returns the rules kept for set, nil when there are none (or no
// views).
func (vs *views) find(set agentSet) *matcher.Matcher {
	if vs == nil {
		return nil
	}
	if l := vs.list.Load(); l != nil {
		for i := range *l {
			if (*l)[i].set == set {
				return (*l)[i].rules
			}
		}
	}
	return nil
}

// size returns the bytes the views weigh, with the rules they keep; none
// for no views.
func (vs *views) size() int64 {
	if vs == nil {
		return 0
	}
	n := int64(unsafe.Sizeof(*vs))
	l := vs.list.Load()
	if l == nil {
		return n
	}
	n += int64(unsafe.Sizeof(*l)) + int64(cap(*l))*int64(unsafe.Sizeof(view{}))
	for i := range *l {
		n += (*l)[i].cost()
	}
	return n
}

// add keeps m as the rules of set, dropping the oldest sets kept so that at
// most maxViews remain within limit bytes. It reports whether m was kept: it
// is not when it alone weighs more than limit. vs.mu is held.
func (vs *views) add(set agentSet, m *matcher.Matcher, limit int64) bool {
	w := view{set: set, rules: m}
	cost := w.cost()
	if cost > limit {
		return false
	}
	var cur []view
	if l := vs.list.Load(); l != nil {
		cur = *l
	}
	var total int64
	for i := range cur {
		total += cur[i].cost()
	}
	for len(cur) > 0 && (len(cur) >= maxViews || total+cost > limit) {
		total -= cur[0].cost()
		cur = cur[1:]
	}
	next := append(make([]view, 0, len(cur)+1), cur...)
	next = append(next, w)
	vs.list.Store(&next)
	return true
}

// matcherOf returns the rules of v, compiled from the good record src and
// held for the authority key, for c's agents; nil when v has none (its
// verdict is not Rules). It inlines, so that the Options' agents pay
// nothing for others'.
func (c *Client) matcherOf(key string, v *compiled, src source) *matcher.Matcher {
	if c.set == "" || v.rules == nil {
		return v.rules
	}
	return c.viewOf(key, v, src)
}

// viewOf returns the rules of v, compiled from src and held for the
// authority key, for c's agents, which are not the Options'.
func (c *Client) viewOf(key string, v *compiled, src source) *matcher.Matcher {
	if m := v.views.Load().find(c.set); m != nil {
		return m
	}
	return c.compileView(key, v, src)
}

// compileView compiles the file of src for c's agents and keeps the rules
// beside v, its compiled form for the Options' agents, growing v through
// the cache, which counts them against its budget. Concurrent callers for
// one file wait for each other: a set compiles once however many ask.
func (c *Client) compileView(key string, v *compiled, src source) *matcher.Matcher {
	file := src.fields()
	if file.BodyLen() == 0 {
		return v.rules // an empty file has no groups: the same answer for every agent
	}
	var m *matcher.Matcher
	c.cache.Grow(key, func() bool {
		// Most files are never asked about for other agents: their views
		// come with the first that is, as growth of v.
		created := v.views.Load() == nil && v.views.CompareAndSwap(nil, new(views))
		vs := v.views.Load()
		vs.mu.Lock()
		defer vs.mu.Unlock()
		if m = vs.find(c.set); m != nil {
			return created
		}
		parser.ParseFunc(file.File(), func(r *parser.Robots) { m = matcher.Compile(r, c.agents...) })
		c.stats.agentCompiles.Add(1)
		return vs.add(c.set, m, c.viewBytes) || created
	})
	return m
}
