package usage

import (
	"iter"
	"slices"
	"strings"
)

// The labels of the vocabulary (vocab-07 §6.1; ai-use from vocab-08).
const (
	// TrainAI is the label of the AI Training category (vocab-08; "AI
	// Model Training" in vocab-07 §4.2).
	TrainAI = "train-ai"
	// Search is the label of the Search category (vocab-07 §4.3).
	Search = "search"
	// AIUse is the label of the AI Use category, added by vocab-08.
	AIUse = "ai-use"
)

// HeaderName is the HTTP field that carries usage preferences
// (draft-ietf-aipref-attach-05 §2).
const HeaderName = "Content-Usage"

// Pref is a preference for one category of use.
type Pref uint8

// The preferences. They are ordered by restriction: No is more restrictive
// than Yes, which is more restrictive than Unknown.
const (
	// Unknown: no preference was stated, or none could be read
	// (vocab-07 §3).
	Unknown Pref = iota
	// Yes: the use is allowed (the Token y, vocab-07 §6.2).
	Yes
	// No: the use is disallowed (the Token n, vocab-07 §6.2).
	No
)

// String returns "y", "n" or "unknown".
func (v Pref) String() string {
	switch v {
	case Yes:
		return "y"
	case No:
		return "n"
	}
	return "unknown"
}

// MaxExtraLabels is how many labels outside the vocabulary a Prefs keeps,
// so that labels added by a later revision of the vocabulary can be read
// with Get before this package knows them. Labels longer than
// MaxExtraLabelLen bytes are not kept. When a value states more, the first
// in byte order are kept.
//
// To read a value of any size in bounded memory, Parse follows at most
// 2*MaxExtraLabels of these labels at a time, the first in byte order so
// far. A value that states more than that and then takes back more than
// MaxExtraLabels of the ones followed (a later member of the same label
// with a value other than y or n) can leave fewer than MaxExtraLabels
// kept, though labels after them in byte order are stated: the ones kept
// are still the first in byte order, with their last values.
const (
	MaxExtraLabels   = 32
	MaxExtraLabelLen = 64
)

// Prefs holds a preference per label: the statement made by one
// Content-Usage value, or several combined. The zero value states nothing:
// every label is Unknown.
//
// Prefs is a small comparable value: == tells whether two statements are
// the same, and it can be a map key. Get never allocates.
type Prefs struct {
	// known holds the vocabulary's labels, two bits each, in the order of
	// knownLabels.
	known uint8
	// extra holds the other labels stated y or n, as a canonical
	// Dictionary: sorted by label, each once, "a=y, b=n".
	extra string
}

// knownLabels are the vocabulary's labels in the order Prefs stores them
// and String writes them.
var knownLabels = [...]string{TrainAI, Search, AIUse}

func knownIndex(label string) int {
	switch label {
	case TrainAI:
		return 0
	case Search:
		return 1
	case AIUse:
		return 2
	}
	return -1
}

func (p Prefs) at(i int) Pref { return Pref(p.known >> (2 * i) & 3) }

func (p *Prefs) set(i int, v Pref) {
	p.known = p.known&^(3<<(2*i)) | uint8(v)<<(2*i)
}

// Get returns the preference stated for label, compared exactly (labels are
// lowercase). Each label stands alone: there is no fallback from one
// category to another (vocab-07 §5). A label outside the vocabulary gives
// what was stated for it, if it was kept (see MaxExtraLabels).
func (p Prefs) Get(label string) Pref {
	if i := knownIndex(label); i >= 0 {
		return p.at(i)
	}
	for s := p.extra; s != ""; {
		var e string
		e, s, _ = strings.Cut(s, ", ")
		switch k := e[:len(e)-2]; {
		case k == label:
			return prefOfToken(e[len(e)-1:])
		case k > label:
			return Unknown // extra is sorted
		}
	}
	return Unknown
}

// All yields every label stated y or n, with its preference: the
// vocabulary's labels first, in the order train-ai, search, ai-use, then
// the others in byte order.
func (p Prefs) All() iter.Seq2[string, Pref] {
	return func(yield func(string, Pref) bool) {
		for i, l := range knownLabels {
			if v := p.at(i); v != Unknown && !yield(l, v) {
				return
			}
		}
		for s := p.extra; s != ""; {
			var e string
			e, s, _ = strings.Cut(s, ", ")
			if !yield(e[:len(e)-2], prefOfToken(e[len(e)-1:])) {
				return
			}
		}
	}
}

// String returns the statement as a Content-Usage value in canonical form,
// such as "train-ai=n, search=y": the labels stated y or n, in the order of
// All. It is empty when nothing is stated. Parse(p.String()) == p.
func (p Prefs) String() string {
	if p.known == 0 {
		return p.extra
	}
	var b strings.Builder
	b.Grow(32 + len(p.extra))
	for i, l := range knownLabels {
		if v := p.at(i); v != Unknown {
			if b.Len() > 0 {
				b.WriteString(", ")
			}
			b.WriteString(l)
			b.WriteByte('=')
			b.WriteString(v.String())
		}
	}
	if p.extra != "" {
		b.WriteString(", ")
		b.WriteString(p.extra)
	}
	return b.String()
}

// Combine returns the most restrictive preference per label of ps: No if
// any says No, else Yes if any says Yes, else Unknown (vocab-07 §5.1). It is
// how statements from different places (robots.txt and the header, or rules
// of equal length) are combined.
//
// Combine allocates at most the string of the labels outside the
// vocabulary of the result, however many statements it combines: combining
// many at once costs less than combining them one by one.
//
// Combine never weakens a No, but what it is given may already have lost
// one. Five readings turn an n as written into Yes or Unknown before
// Combine sees it: a later value of the same label in one statement wins
// (and FromHeader reads all of a header's lines as one statement, RFC 9651
// §4.2); a syntax error anywhere, an empty header line included, makes
// every label Unknown; a value other than the token n ("no", "N", a string)
// is Unknown; robots.txt's longest matching rule is the whole statement, so
// a label it omits is Unknown though a shorter rule says n; and a URL
// robots.txt disallows has no preferences from it. client.Usage lists them
// with examples.
func Combine(ps ...Prefs) Prefs {
	var out Prefs
	extras := 0
	for _, p := range ps {
		for i := range knownLabels {
			if v := p.at(i); v > out.at(i) {
				out.set(i, v)
			}
		}
		if p.extra != "" && p.extra != out.extra {
			out.extra = p.extra
			extras++
		}
	}
	if extras > 1 {
		// The first MaxExtraLabels labels of the union of the first ones
		// so far and those of the next statement are the first of the
		// union of all: a label past them never comes back.
		var a, b [MaxExtraLabels]extraLabel
		kept, spare := a[:0], b[:0]
		for _, p := range ps {
			if p.extra != "" {
				kept, spare = mergeExtra(spare[:0], kept, p.extra), kept
			}
		}
		out.extra = writeExtra(kept)
	}
	return out
}

// mergeExtra appends to out the first MaxExtraLabels labels of kept (sorted,
// each once) and of extra (a Prefs.extra), each with the most restrictive
// of its preferences there.
func mergeExtra(out, kept []extraLabel, extra string) []extraLabel {
	k := 0
	for len(out) < MaxExtraLabels && (extra != "" || k < len(kept)) {
		if extra == "" {
			out = append(out, kept[k])
			k++
			continue
		}
		first, rest, _ := strings.Cut(extra, ", ")
		e := extraLabel{first[:len(first)-2], prefOfToken(first[len(first)-1:])}
		switch {
		case k < len(kept) && kept[k].key < e.key:
			out = append(out, kept[k])
			k++
			continue
		case k < len(kept) && kept[k].key == e.key:
			e.v = max(e.v, kept[k].v)
			k++
		}
		out = append(out, e)
		extra = rest
	}
	return out
}

// extraLabel is a label outside the vocabulary with its preference.
type extraLabel struct {
	key string
	v   Pref
}

// extraTracked is how many labels outside the vocabulary Parse follows
// while it reads a value: the first MaxExtraLabels in byte order, and as
// many more so that a value can take some of those back without losing
// the ones after them.
const extraTracked = 2 * MaxExtraLabels

// extraSet follows the labels outside the vocabulary of one Dictionary, in
// member order, so that what it keeps at the end is what sorting every
// member and taking the last value of each label would give (vocab-07
// §6.5.1): the first MaxExtraLabels labels in byte order whose last value
// is y or n. It holds at most extraTracked labels, whatever the value
// states, and never a copy of one.
//
// es holds, sorted, every label whose value so far is y or n and that is
// not after cut in byte order (every such label while cutting is false).
// A label stated without y or n is not held: it has no value to keep, and
// a later y or n brings it back. When a label would make es too long, the
// last of es goes and cut moves before it. So es always starts with the
// first labels in byte order of those the value leaves stated y or n, each
// with its last value; it can end short of MaxExtraLabels where they do
// not only when, after es was cut, more than extraTracked-MaxExtraLabels
// of its labels were taken back.
type extraSet struct {
	es      []extraLabel
	cut     string
	cutting bool
}

// state records that a member gives key the value v.
func (x *extraSet) state(key string, v Pref) {
	if len(key) > MaxExtraLabelLen || v == Unknown && len(x.es) == 0 {
		return // never kept, whatever its value; or nothing to take back
	}
	i, found := slices.BinarySearchFunc(x.es, key, func(e extraLabel, k string) int { return strings.Compare(e.key, k) })
	n := len(x.es)
	switch {
	case found && v == Unknown:
		copy(x.es[i:], x.es[i+1:])
		x.es = x.es[:n-1]
	case found:
		x.es[i].v = v
	case v == Unknown || x.cutting && key > x.cut:
		// Nothing to follow: no value, or after labels that come first.
	case n < extraTracked:
		if n == cap(x.es) { // grown once, to its bound
			x.es = append(make([]extraLabel, 0, extraTracked), x.es...)
		}
		x.es = x.es[:n+1]
		copy(x.es[i+1:], x.es[i:n])
		x.es[i] = extraLabel{key, v}
	default:
		if i < n {
			copy(x.es[i+1:], x.es[i:n-1])
			x.es[i] = extraLabel{key, v}
		}
		x.cut, x.cutting = x.es[n-1].key, true
	}
}

func writeExtra(es []extraLabel) string {
	if len(es) == 0 {
		return ""
	}
	n := 0
	for _, e := range es {
		n += len(e.key) + 4
	}
	var b strings.Builder
	b.Grow(n)
	for i, e := range es {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.key)
		b.WriteByte('=')
		b.WriteString(e.v.String())
	}
	return b.String()
}

// prefOfToken maps the Tokens y and n, compared exactly (vocab-07 §6.2), to
// Yes and No, and anything else to Unknown (vocab-07 §6.5).
func prefOfToken(t string) Pref {
	switch t {
	case "y":
		return Yes
	case "n":
		return No
	}
	return Unknown
}
