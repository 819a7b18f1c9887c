package usage_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/usage"
)

func TestValidate(t *testing.T) {
	type p = usage.Problem
	for _, tt := range []struct {
		value string
		want  []p
	}{
		{"train-ai=n, search=y, ai-use=y", nil},
		{"train-ai=n;reason=\"policy\"", nil}, // vocab-07 §6.4: parameters are extensions
		{"", []p{{Kind: usage.Empty, Message: "states no preference"}}},
		{"   ", []p{{Kind: usage.Empty, Message: "states no preference"}}},
		// vocab-07 §6.5.1: a value that is not a Dictionary.
		{"Train-ai=n", []p{{Kind: usage.Syntax, Offset: 0,
			Message: "not an RFC 9651 dictionary (uppercase letter in a key): every label is unknown"}}},
		{"train-ai=n,", []p{{Kind: usage.Syntax, Offset: 11,
			Message: "not an RFC 9651 dictionary (trailing comma): every label is unknown"}}},
		{"train-ai = n", []p{{Kind: usage.Syntax, Offset: 9,
			Message: "not an RFC 9651 dictionary (white space before '='): every label is unknown"}}},
		// attach-05 §3.2: a robots.txt value starting with '*' has no path.
		{"*.pdf train-ai=n", []p{
			{Kind: usage.Syntax, Offset: 6, Message: "not an RFC 9651 dictionary (expected ',' between members): every label is unknown"},
			{Kind: usage.Wildcard, Offset: 0, Message: "a Content-Usage path starts with '/'; a value starting with '*' has no path and is read whole as preferences"},
		}},
		// Labels have no wildcards.
		{"*=n", []p{{Kind: usage.Wildcard, Offset: 0, Label: "*",
			Message: `"*" is not a label: labels have no wildcards; name each category`}}},
		{"train-*=n, search=y", []p{{Kind: usage.Wildcard, Offset: 0, Label: "train-*",
			Message: `"train-*" is not a label: labels have no wildcards; name each category`}}},
		// vocab-07 §6.4: unknown labels are ignored, with a hint where one helps.
		{"bots=n, train-ai=y", []p{{Kind: usage.UnknownLabel, Offset: 0, Label: "bots",
			Message: "bots: a label of an earlier draft of the vocabulary, no longer defined; readers ignore it"}}},
		{"future=n", []p{{Kind: usage.UnknownLabel, Offset: 0, Label: "future",
			Message: "future: not a label of the vocabulary (train-ai, search, ai-use); readers ignore it"}}},
		// Content-Signal written as Content-Usage: a Dictionary, but nothing in it counts.
		{"search=yes, ai-train=no", []p{
			{Kind: usage.BadValue, Offset: 7, Label: "search",
				Message: "search: the value yes is not the Token y (tokens compare exactly); the label is unknown"},
			{Kind: usage.UnknownLabel, Offset: 12, Label: "ai-train",
				Message: "ai-train: Content-Signal's name; the AIPREF label is train-ai; readers ignore it"},
		}},
		// vocab-07 §6.5, §6.2: values other than the Tokens y and n.
		{`train-ai="n", search=N, ai-use`, []p{
			{Kind: usage.BadValue, Offset: 9, Label: "train-ai",
				Message: `train-ai: the value "n" is a String: write the Token y or n, without quotes; the label is unknown`},
			{Kind: usage.BadValue, Offset: 21, Label: "search",
				Message: "search: the value N is not the Token n (tokens compare exactly); the label is unknown"},
			{Kind: usage.BadValue, Offset: 30, Label: "ai-use",
				Message: "ai-use: a key alone is the Boolean true, not a preference: write ai-use=y or ai-use=n; the label is unknown"},
		}},
		{"train-ai=maybe, search=1, ai-use=(y)", []p{
			{Kind: usage.BadValue, Offset: 9, Label: "train-ai",
				Message: "train-ai: the value maybe is neither y nor n; the label is unknown"},
			{Kind: usage.BadValue, Offset: 23, Label: "search",
				Message: "search: the value is an Integer, not the Token y or n; the label is unknown"},
			{Kind: usage.BadValue, Offset: 33, Label: "ai-use",
				Message: "ai-use: the value is an Inner List, not the Token y or n; the label is unknown"},
		}},
		// vocab-07 §6.5.1: only the last value counts.
		{"train-ai=n, search=y, train-ai=y", []p{{Kind: usage.Duplicate, Offset: 0, Label: "train-ai",
			Message: "train-ai is given again at byte 22; only the last value counts"}}},
	} {
		assert.Equal(t, tt.want, usage.Validate(tt.value), "%q", tt.value)
	}
}

func TestValidateAgreesWithParse(t *testing.T) {
	// A value without problems states y or n for each label it names; a
	// Syntax problem means Parse gives nothing.
	for _, v := range []string{
		"train-ai=n", "search=y, ai-use=n", "train-ai=y;p", "Train-ai=n", "search=y,", "a=(1 2", "*",
	} {
		ps := usage.Validate(v)
		syntax := len(ps) > 0 && ps[0].Kind == usage.Syntax
		if syntax {
			assert.Equal(t, usage.Prefs{}, usage.Parse(v), v)
		}
		if len(ps) == 0 {
			assert.NotEqual(t, usage.Prefs{}, usage.Parse(v), v)
		}
	}
}

// A value that is not a Dictionary costs Validate its Syntax problem,
// however many members come before the error: the parser validates such a
// value to warn about it.
func TestValidateSyntaxCostsItsProblem(t *testing.T) {
	for _, v := range []string{
		strings.Repeat("a,", 1<<18) + "X",
		strings.Repeat("train-ai=n, ", 1<<16) + "Search=y",
		"*" + strings.Repeat(", k=y", 1<<16) + ",",
	} {
		var ps []usage.Problem
		allocated := leastAllocated(func() { ps = usage.Validate(v) })
		require.NotEmpty(t, ps)
		assert.Equal(t, usage.Syntax, ps[0].Kind)
		assert.Less(t, allocated, int64(1<<10), "%.20q…", v)
	}
}

// WellFormed is false exactly when Validate's first problem makes every
// label unknown (vocab-07 §6.5.1), and it costs nothing: the parser calls
// it on every Content-Usage line.
func TestWellFormed(t *testing.T) {
	for _, tt := range []struct {
		value string
		want  bool
	}{
		{"train-ai=n", true},
		{"train-ai=n, search=y, ai-use=n", true},
		{" train-ai=n ", true},
		{"train-ai=N", true},     // a Dictionary: the label is unknown, the others are read
		{"bots=n, tdm", true},    // unknown labels, a bare key
		{"train-ai=n;p=1", true}, // parameters are ignored
		{"a=n, a=y", true},       // a duplicate
		{"", false},              // Empty
		{"   ", false},
		{"Train-ai=n", false}, // Syntax
		{"train-ai=n,", false},
		{"* train-ai=n", false},
		{"\ttrain-ai=n", false},
		{`train-ai="n`, false},
		{"a=(1 2", false},
	} {
		assert.Equal(t, tt.want, usage.WellFormed(tt.value), "%q", tt.value)
		ps := usage.Validate(tt.value)
		spoiled := len(ps) > 0 && (ps[0].Kind == usage.Syntax || ps[0].Kind == usage.Empty)
		assert.Equal(t, !spoiled, usage.WellFormed(tt.value), "%q: Validate says %v", tt.value, ps)
		if tt.want {
			assert.Zero(t, testing.AllocsPerRun(10, func() { usage.WellFormed(tt.value) }), "%q", tt.value)
		}
	}
}

func TestProblemStrings(t *testing.T) {
	assert.Equal(t, "byte 3: oops", usage.Problem{Offset: 3, Message: "oops"}.String())
	names := map[usage.ProblemKind]string{
		usage.Syntax: "syntax", usage.Empty: "empty", usage.UnknownLabel: "unknown-label",
		usage.BadValue: "bad-value", usage.Duplicate: "duplicate", usage.Wildcard: "wildcard",
		usage.Parameters: "parameters", usage.Tolerated: "tolerated",
	}
	for k, n := range names {
		assert.Equal(t, n, k.String())
	}
	assert.Equal(t, "problem(0)", usage.ProblemKind(0).String())
	assert.Equal(t, "problem(99)", usage.ProblemKind(99).String())
}
