package usage_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/usage"
)

// The shapes Cloudflare publishes: the managed robots.txt default, the
// policy's examples, and the field sent with Markdown responses. None of the
// corpus's 2,661 files (captured 2019–2024) has a Content-Signal line.
func TestParseSignalPublishedShapes(t *testing.T) {
	for _, tt := range []struct {
		value string
		want  usage.Signal
	}{
		{"search=yes, ai-train=no", usage.Signal{Search: Yes, AITrain: No}},
		{"search=yes,ai-train=no", usage.Signal{Search: Yes, AITrain: No}},
		{"search=yes, ai-train=no, ai-input=no", usage.Signal{Search: Yes, AIInput: No, AITrain: No}},
		{"search=yes, ai-input=yes, ai-train=no", usage.Signal{Search: Yes, AIInput: Yes, AITrain: No}},
		{"ai-train=yes, search=yes, ai-input=yes", usage.Signal{Search: Yes, AIInput: Yes, AITrain: Yes}},
	} {
		s, ps := usage.ParseSignal(tt.value)
		assert.Equal(t, tt.want, s, tt.value)
		assert.Empty(t, ps, tt.value)
		// Canonical form round-trips.
		back, ps := usage.ParseSignal(s.String())
		assert.Equal(t, s, back)
		assert.Empty(t, ps)
	}
}

type p = usage.Problem

// toleranceCases are values that ParseSignal reads with problems, and what it
// reads of them.
var toleranceCases = []struct {
	value string
	want  usage.Signal
	probs []p
}{
	{"", usage.Signal{}, []p{{Kind: usage.Empty, Message: "states no signal"}}},
	{" \t", usage.Signal{}, []p{{Kind: usage.Empty, Message: "states no signal"}}},
	// Case: read, and reported.
	{"AI-Train=No", usage.Signal{AITrain: No}, []p{
		{Kind: usage.Tolerated, Offset: 0, Label: "AI-Train", Message: "AI-Train read as ai-train: write names in lowercase"},
		{Kind: usage.Tolerated, Offset: 9, Label: "AI-Train", Message: "No read as no: write values in lowercase"},
	}},
	// White space around '=' and around members.
	{"  search = yes ,\tai-train=no\t", usage.Signal{Search: Yes, AITrain: No}, []p{
		{Kind: usage.Tolerated, Offset: 2, Label: "search", Message: "white space around '=' skipped"},
	}},
	// Empty members.
	{"search=yes,, ai-train=no,", usage.Signal{Search: Yes, AITrain: No}, []p{
		{Kind: usage.Tolerated, Offset: 11, Message: "empty member, skipped"},
		{Kind: usage.Tolerated, Offset: 25, Message: "empty member, skipped"},
	}},
	// One bad member leaves the others standing (unlike Content-Usage).
	{"search=yes, ai-train=maybe, ai-input=no", usage.Signal{Search: Yes, AIInput: No}, []p{
		{Kind: usage.BadValue, Offset: 21, Label: "ai-train", Message: `ai-train: the value "maybe" is neither yes nor no; it is unknown`},
	}},
	{`search=y, ai-train="no"`, usage.Signal{}, []p{
		{Kind: usage.BadValue, Offset: 7, Label: "search", Message: `search: the value "y" is neither yes nor no; it is unknown`},
		{Kind: usage.BadValue, Offset: 19, Label: "ai-train", Message: `ai-train: the value "\"no\"" is neither yes nor no; it is unknown`},
	}},
	{"ai-train", usage.Signal{}, []p{
		{Kind: usage.BadValue, Offset: 0, Label: "ai-train", Message: "ai-train has no value: write ai-train=yes or ai-train=no; it is unknown"},
	}},
	// Unknown names, AIPREF's included: ignored.
	{"train-ai=n, search-ai=yes, search=no", usage.Signal{Search: No}, []p{
		{Kind: usage.UnknownLabel, Offset: 0, Label: "train-ai", Message: `"train-ai": an AIPREF label, which belongs in Content-Usage, not a Content-Signal name; ignored`},
		{Kind: usage.UnknownLabel, Offset: 12, Label: "search-ai", Message: `"search-ai": not a Content-Signal name (search, ai-input, ai-train); ignored`},
	}},
	// The last member of a key counts, as in an RFC 9651 Dictionary.
	{"ai-train=no, ai-train=yes", usage.Signal{AITrain: Yes}, []p{
		{Kind: usage.Duplicate, Offset: 0, Label: "ai-train", Message: "ai-train is given again at byte 13; only the last counts"},
	}},
	{"ai-train=no, ai-train", usage.Signal{}, []p{
		{Kind: usage.Duplicate, Offset: 0, Label: "ai-train", Message: "ai-train is given again at byte 13; only the last counts"},
		{Kind: usage.BadValue, Offset: 13, Label: "ai-train", Message: "ai-train has no value: write ai-train=yes or ai-train=no; it is unknown"},
	}},
	// Parameters are ignored, as in a Dictionary; a ';' used as a
	// separator hides what follows it.
	{"search=yes;v=1, ai-train=no", usage.Signal{Search: Yes, AITrain: No}, []p{
		{Kind: usage.Parameters, Offset: 10, Label: "search", Message: `parameters ";v=1" are not part of Content-Signal; ignored`},
	}},
	{"search=yes; ai-train=no", usage.Signal{Search: Yes}, []p{
		{Kind: usage.Parameters, Offset: 10, Label: "search", Message: `parameters "; ai-train=no" are not part of Content-Signal; ignored`},
	}},
}

func TestParseSignalTolerance(t *testing.T) {
	for _, tt := range toleranceCases {
		s, ps := usage.ParseSignal(tt.value)
		assert.Equal(t, tt.want, s, "%q", tt.value)
		assert.Equal(t, tt.probs, ps, "%q", tt.value)
	}
}

// ParseSignalN reads what ParseSignal reads and returns the first n of its
// problems, building no other: nothing at all with n = 0, and one problem
// with n = 1 whatever the value holds.
func TestParseSignalN(t *testing.T) {
	for _, tt := range toleranceCases {
		for n := -1; n <= len(tt.probs)+1; n++ {
			s, ps := usage.ParseSignalN(tt.value, n)
			assert.Equal(t, tt.want, s, "%q, %d", tt.value, n)
			want := tt.probs
			if n >= 0 {
				want = want[:min(n, len(want))]
			}
			if len(want) == 0 {
				assert.Empty(t, ps, "%q, %d", tt.value, n)
			} else {
				assert.Equal(t, want, ps, "%q, %d", tt.value, n)
			}
		}
		assert.Zero(t, testing.AllocsPerRun(20, func() { usage.ParseSignalN(tt.value, 0) }), "%q", tt.value)
	}
	// A problem per member, had they all been built.
	for _, v := range []string{
		strings.Repeat("x,", 1<<16) + "x",
		strings.Repeat("search=yes, ", 1<<16),
		strings.Repeat("Search=YES;v=1 ,", 1<<16),
	} {
		_, all := usage.ParseSignal(v)
		require.GreaterOrEqual(t, len(all), 1<<16)
		var s usage.Signal
		var ps []usage.Problem
		allocated := leastAllocated(func() { s, ps = usage.ParseSignalN(v, 1) })
		assert.Equal(t, all[:1], ps)
		assert.Less(t, allocated, int64(1<<10), "%.20q…: one problem", v)
		allocated = leastAllocated(func() { s, ps = usage.ParseSignalN(v, 0) })
		assert.Zero(t, allocated)
		assert.Empty(t, ps)
		want, _ := usage.ParseSignal(v)
		assert.Equal(t, want, s)
	}
}

func TestSignalIsNotAIPREF(t *testing.T) {
	// aipref.md reading 15: Content-Signal's keys in a Content-Usage value
	// are unknown labels, and the reverse.
	p := usage.Parse("search=yes, ai-train=no, ai-input=no")
	assert.Equal(t, usage.Prefs{}, p)
	s, _ := usage.ParseSignal("train-ai=n, search=y")
	assert.Equal(t, usage.Signal{}, s)
}

func TestSignalString(t *testing.T) {
	assert.Equal(t, "", usage.Signal{}.String())
	assert.Equal(t, "search=yes, ai-input=no, ai-train=no", usage.Signal{Search: Yes, AIInput: No, AITrain: No}.String())
	assert.Equal(t, "ai-train=yes", usage.Signal{AITrain: Yes}.String())
}

func TestSignalFromHeader(t *testing.T) {
	s, ps := usage.SignalFromHeader(http.Header{"Content-Signal": {"ai-train=yes, search=yes", "ai-input=no"}})
	assert.Equal(t, usage.Signal{Search: Yes, AIInput: No, AITrain: Yes}, s)
	assert.Empty(t, ps)
	s, ps = usage.SignalFromHeader(http.Header{"Content-Usage": {"train-ai=n"}})
	assert.Equal(t, usage.Signal{}, s)
	assert.Empty(t, ps)
}

func TestCombineSignals(t *testing.T) {
	a := usage.Signal{Search: usage.Yes, AITrain: usage.Yes}
	b := usage.Signal{AITrain: usage.No, AIInput: usage.Yes}
	assert.Equal(t, usage.Signal{Search: usage.Yes, AIInput: usage.Yes, AITrain: usage.No}, usage.CombineSignals(a, b))
	assert.Equal(t, usage.Signal{}, usage.CombineSignals())
	assert.Equal(t, a, usage.CombineSignals(a))
}
