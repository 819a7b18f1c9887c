package usage

import (
	"bytes"
	"encoding/base32"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sfVector is one test of the HTTP WG's Structured Field tests
// (testdata/sf/README.md).
type sfVector struct {
	Name       string          `json:"name"`
	Raw        []string        `json:"raw"`
	HeaderType string          `json:"header_type"`
	Expected   json.RawMessage `json:"expected"`
	MustFail   bool            `json:"must_fail"`
	CanFail    bool            `json:"can_fail"`
}

// The values the harness compares: what the parser's spans decode to, and
// what the vectors' JSON says, brought to the same Go types.
type (
	sfTokenValue string
	sfBinary     string // base32, as the vectors write it
	sfDateValue  int64
	sfDisplay    string
	sfPair       struct {
		key string
		v   any
	}
	sfWithPars struct {
		bare   any // a bare value, or []sfWithPars for an Inner List
		params []sfPair
	}
)

// setPair appends or overwrites key, keeping the first position
// (RFC 9651 §4.2.2, §4.2.3.2).
func setPair(ps []sfPair, key string, v any) []sfPair {
	for i := range ps {
		if ps[i].key == key {
			ps[i].v = v
			return ps
		}
	}
	return append(ps, sfPair{key, v})
}

func loadSFVectors(t *testing.T) map[string][]sfVector {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "sf", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	out := map[string][]sfVector{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		var vs []sfVector
		require.NoError(t, json.Unmarshal(b, &vs), f)
		out[filepath.Base(f)] = vs
	}
	return out
}

// TestStructuredFieldVectors runs every Dictionary and Item vector of
// testdata/sf through the parser: must_fail vectors must fail, others must
// parse to exactly the expected value (RFC 9651 §4.2).
func TestStructuredFieldVectors(t *testing.T) {
	ran := 0
	for file, vs := range loadSFVectors(t) {
		for i, v := range vs {
			if v.HeaderType != "dictionary" && v.HeaderType != "item" {
				continue
			}
			ran++
			t.Run(file+"/"+strconv.Itoa(i)+"/"+v.Name, func(t *testing.T) {
				field := strings.Join(v.Raw, ", ")
				var got any
				var ok bool
				if v.HeaderType == "dictionary" {
					got, ok = decodeDictionary(t, field)
					// Validate agrees with the parser on whether the value is
					// a Dictionary.
					syntax := false
					for _, p := range Validate(field) {
						syntax = syntax || p.Kind == Syntax
					}
					assert.Equal(t, !ok, syntax, "Validate's Syntax problem")
				} else {
					got, ok = decodeItemField(t, field)
				}
				switch {
				case v.MustFail:
					assert.False(t, ok, "must fail, parsed as %#v", got)
				case v.CanFail && !ok:
				default:
					require.True(t, ok, "must parse")
					want := normExpected(t, v.HeaderType, v.Expected)
					assert.Equal(t, want, got)
				}
			})
		}
	}
	// testdata/sf holds 1,294 such vectors; a harness that skipped them
	// must not pass.
	assert.GreaterOrEqual(t, ran, 1294)
}

func decodeDictionary(t *testing.T, field string) (any, bool) {
	var ps []sfPair
	_, ok := parseDictionary(field, func(m sfMember) {
		ps = setPair(ps, m.key, decodeMember(t, m))
	})
	if !ok {
		return nil, false
	}
	return ps, true
}

func decodeMember(t *testing.T, m sfMember) sfWithPars {
	if m.bare {
		return sfWithPars{bare: true, params: decodeParams(t, m.value.params)}
	}
	return decodeItem(t, m.value)
}

func decodeItemField(t *testing.T, field string) (any, bool) {
	it, _, ok := parseItemField(field)
	if !ok {
		return nil, false
	}
	return decodeItem(t, it), true
}

func decodeItem(t *testing.T, it sfItem) sfWithPars {
	out := sfWithPars{params: decodeParams(t, it.params)}
	if it.kind == sfInnerList {
		items := []sfWithPars{}
		require.True(t, eachInner(it.raw, func(x sfItem) { items = append(items, decodeItem(t, x)) }))
		out.bare = items
		return out
	}
	out.bare = decodeBare(t, it)
	return out
}

func decodeParams(t *testing.T, params string) []sfPair {
	var ps []sfPair
	require.True(t, eachParam(params, func(k string, v sfItem) { ps = setPair(ps, k, decodeBare(t, v)) }), "params %q", params)
	return ps
}

// decodeBare turns the span of a Bare Item into its value. It trusts the
// parser's checks; it is how the tests see what a span means.
func decodeBare(t *testing.T, it sfItem) any {
	raw := it.raw
	switch it.kind {
	case sfInteger:
		n, err := strconv.ParseInt(raw, 10, 64)
		require.NoError(t, err)
		return n
	case sfDecimal:
		f, err := strconv.ParseFloat(raw, 64)
		require.NoError(t, err)
		return f
	case sfString:
		return strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(raw[1 : len(raw)-1])
	case sfToken:
		return sfTokenValue(raw)
	case sfBytes:
		b, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(raw[1:len(raw)-1], "="))
		require.NoError(t, err, raw)
		return sfBinary(base32.StdEncoding.EncodeToString(b))
	case sfBoolean:
		return raw != "?0" // "" is the implied true of a bare key
	case sfDate:
		n, err := strconv.ParseInt(raw[1:], 10, 64)
		require.NoError(t, err)
		return sfDateValue(n)
	case sfDisplayString:
		var b []byte
		s := raw[2 : len(raw)-1]
		for i := 0; i < len(s); i++ {
			if s[i] == '%' {
				n, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
				require.NoError(t, err)
				b = append(b, byte(n))
				i += 2
				continue
			}
			b = append(b, s[i])
		}
		return sfDisplay(b)
	}
	t.Fatalf("bare item of kind %d", it.kind)
	return nil
}

// normExpected brings a vector's expected value to the harness's types. The
// suite writes Dictionaries and Parameters as objects in older versions and
// as arrays of pairs in newer ones; both keep their order here.
func normExpected(t *testing.T, headerType string, raw json.RawMessage) any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v := decodeOrdered(t, dec)
	if headerType == "item" {
		return normMember(t, v)
	}
	var ps []sfPair
	for _, p := range pairs(t, v) {
		ps = setPair(ps, p.key, normMember(t, p.v))
	}
	return ps
}

// jsonObject is a JSON object with its members in order.
type jsonObject []sfPair

func decodeOrdered(t *testing.T, dec *json.Decoder) any {
	tok, err := dec.Token()
	require.NoError(t, err)
	switch tok {
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			a = append(a, decodeOrdered(t, dec))
		}
		_, err = dec.Token()
		require.NoError(t, err)
		return a
	case json.Delim('{'):
		o := jsonObject{}
		for dec.More() {
			k, err := dec.Token()
			require.NoError(t, err)
			o = append(o, sfPair{k.(string), decodeOrdered(t, dec)})
		}
		_, err = dec.Token()
		require.NoError(t, err)
		return o
	}
	return tok
}

// pairs reads a Dictionary or Parameters: an object, or an array of
// [name, value] arrays.
func pairs(t *testing.T, v any) []sfPair {
	if o, ok := v.(jsonObject); ok {
		return o
	}
	var ps []sfPair
	for _, e := range v.([]any) {
		kv := e.([]any)
		require.Len(t, kv, 2)
		ps = append(ps, sfPair{kv[0].(string), kv[1]})
	}
	return ps
}

func normMember(t *testing.T, v any) sfWithPars {
	a := v.([]any)
	require.Len(t, a, 2)
	var params []sfPair
	for _, p := range pairs(t, a[1]) {
		params = setPair(params, p.key, normBare(t, p.v))
	}
	if list, ok := a[0].([]any); ok {
		items := []sfWithPars{}
		for _, it := range list {
			items = append(items, normMember(t, it))
		}
		return sfWithPars{bare: items, params: params}
	}
	return sfWithPars{bare: normBare(t, a[0]), params: params}
}

func normBare(t *testing.T, v any) any {
	switch x := v.(type) {
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			f, err := x.Float64()
			require.NoError(t, err)
			return f
		}
		n, err := x.Int64()
		require.NoError(t, err)
		return n
	case string, bool:
		return x
	case jsonObject:
		typ, val := "", any(nil)
		for _, p := range x {
			switch p.key {
			case "__type":
				typ = p.v.(string)
			case "value":
				val = p.v
			}
		}
		switch typ {
		case "token":
			return sfTokenValue(val.(string))
		case "binary":
			return sfBinary(val.(string))
		case "displaystring":
			return sfDisplay(val.(string))
		case "date":
			n, err := val.(json.Number).Int64()
			require.NoError(t, err)
			return sfDateValue(n)
		}
	}
	t.Fatalf("unexpected expected value %#v", v)
	return nil
}

// TestParseErrorsSayWhere checks the offsets and reasons the parser gives,
// which Validate passes on to linters.
func TestParseErrorsSayWhere(t *testing.T) {
	tests := []struct {
		in  string
		off int
		msg string
	}{
		{"Train-ai=n", 0, "uppercase letter in a key"},
		{"train-ai=n, Search=y", 12, "uppercase letter in a key"},
		{"train-ai=n,", 11, "trailing comma"},
		{"train-ai = n", 9, "white space before '='"},
		{"train-ai=", 9, "missing value"},
		{"train-ai=n search=y", 11, "expected ',' between members"},
		{`train-ai="n`, 11, "string not closed"},
		{"train-ai=n;", 11, "missing key"},
		{"a=1.2345", 7, "a decimal has at most 3 fractional digits"},
		{"a=1234567890123456", 17, "an integer has at most 15 digits"},
		{"\ttrain-ai=n", 0, "a key starts with a lowercase letter or '*'"},
		{"a=(1", 4, "inner list not closed with ')'"},
		{"a=é", 2, "not the start of a value"},
	}
	for _, tt := range tests {
		err, ok := parseDictionary(tt.in, nil)
		if assert.False(t, ok, tt.in) {
			assert.Equal(t, sfError{tt.off, tt.msg}, err, tt.in)
		}
	}
}
