package usage

import (
	"net/http"
	"strconv"
	"strings"
)

// SignalHeaderName is the name of Cloudflare's Content Signals record, in
// robots.txt ("Content-Signal: search=yes, ai-train=no") and as an HTTP
// field.
const SignalHeaderName = "Content-Signal"

// Signal is a Content-Signal statement (Cloudflare's Content Signals
// Policy): a preference for each of its three uses. It is not an AIPREF
// statement and is kept apart from Prefs: its categories are defined by a
// different text, and its names and values differ (ai-train, not train-ai;
// yes and no, not y and n). The zero value states nothing.
type Signal struct {
	// Search: building a search index and showing links and excerpts, not
	// AI-generated summaries.
	Search Pref
	// AIInput: feeding the content to AI models as input, such as
	// retrieval-augmented generation or grounding.
	AIInput Pref
	// AITrain: training or fine-tuning AI models.
	AITrain Pref
}

// signalKeys are the Content-Signal names, in the order String writes
// them.
var signalKeys = [...]string{"search", "ai-input", "ai-train"}

func (s *Signal) field(i int) *Pref {
	switch i {
	case 0:
		return &s.Search
	case 1:
		return &s.AIInput
	}
	return &s.AITrain
}

// String returns the statement as a Content-Signal value in canonical form,
// such as "search=yes, ai-train=no"; empty when nothing is stated.
func (s Signal) String() string {
	var b strings.Builder
	for i, k := range signalKeys {
		v := *s.field(i)
		if v == Unknown {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k)
		if v == Yes {
			b.WriteString("=yes")
		} else {
			b.WriteString("=no")
		}
	}
	return b.String()
}

// ParseSignal reads one Content-Signal value and returns the statement and
// the problems found, in the order of the value.
//
// Content-Signal is a comma-separated list of key=value members, keys
// search, ai-input and ai-train, values yes and no; a use without a member
// is Unknown. Its canonical form is also an RFC 9651 Dictionary, and every
// value that is a Dictionary of lowercase Tokens is read with the same
// meaning: the last member of a key counts, parameters are ignored. But
// Content-Signal is not defined as a Dictionary, so ParseSignal reads each
// member on its own and tolerates what cannot change its meaning:
//   - keys and values compare case-insensitively ("AI-Train=No");
//   - white space around members and around '=' is skipped;
//   - empty members (",," or a trailing comma) are skipped;
//   - a member it cannot read (no '=', a value other than yes or no, an
//     unknown key) leaves that key as it was, and the others stand.
//
// Each tolerance and each ignored member is reported as a Problem.
func ParseSignal(value string) (Signal, []Problem) {
	return ParseSignalN(value, -1)
}

// ParseSignalN is ParseSignal, returning the first n problems, or all of
// them when n < 0. The others are not built, so that reading a value costs
// what its first problems take whatever its members: with n = 0 it
// allocates nothing.
func ParseSignalN(value string, n int) (Signal, []Problem) {
	var s Signal
	var ps []Problem
	more := func() bool { return n < 0 || len(ps) < n }
	var seen [len(signalKeys)]int // offset+1 of each key's last member
	if strings.Trim(value, " \t") == "" {
		if more() {
			ps = append(ps, Problem{Kind: Empty, Message: "states no signal"})
		}
		return s, ps
	}
	for off := 0; off <= len(value); {
		elem, _, _ := strings.Cut(value[off:], ",")
		start := off
		off += len(elem) + 1
		e := strings.TrimLeft(elem, " \t")
		at := start + len(elem) - len(e)
		e = strings.TrimRight(e, " \t")
		if e == "" {
			if more() {
				ps = append(ps, Problem{Kind: Tolerated, Offset: at, Message: "empty member, skipped"})
			}
			continue
		}
		// Parameters first, so that "search;v=1" is a key without a value,
		// as in a Dictionary.
		e, params, hasParams := strings.Cut(e, ";")
		rawKey, rawVal, hasEq := strings.Cut(e, "=")
		key := strings.TrimRight(rawKey, " \t")
		i := signalIndex(key)
		if i < 0 {
			if more() {
				why := "not a Content-Signal name (search, ai-input, ai-train)"
				if knownIndex(key) >= 0 {
					why = "an AIPREF label, which belongs in Content-Usage, not a Content-Signal name"
				}
				ps = append(ps, Problem{Kind: UnknownLabel, Offset: at, Label: key,
					Message: strconv.Quote(key) + ": " + why + "; ignored"})
			}
			continue
		}
		if seen[i] != 0 && more() {
			ps = append(ps, Problem{Kind: Duplicate, Offset: seen[i] - 1, Label: signalKeys[i],
				Message: signalKeys[i] + " is given again at byte " + strconv.Itoa(at) + "; only the last counts"})
		}
		seen[i] = at + 1
		if !hasEq {
			*s.field(i) = Unknown
			if more() {
				ps = append(ps, Problem{Kind: BadValue, Offset: at, Label: key,
					Message: key + " has no value: write " + signalKeys[i] + "=yes or " + signalKeys[i] + "=no; it is unknown"})
			}
			continue
		}
		if key != signalKeys[i] && more() {
			ps = append(ps, Problem{Kind: Tolerated, Offset: at, Label: key,
				Message: key + " read as " + signalKeys[i] + ": write names in lowercase"})
		}
		valAt := at + len(rawKey) + 1
		val := strings.TrimLeft(rawVal, " \t")
		valAt += len(rawVal) - len(val)
		if (len(key) != len(rawKey) || len(val) != len(rawVal)) && more() {
			ps = append(ps, Problem{Kind: Tolerated, Offset: at, Label: key,
				Message: "white space around '=' skipped"})
		}
		if hasParams && more() {
			ps = append(ps, Problem{Kind: Parameters, Offset: at + len(e), Label: key,
				Message: "parameters " + strconv.Quote(";"+params) + " are not part of Content-Signal; ignored"})
		}
		val = strings.TrimRight(val, " \t")
		v := Unknown
		switch {
		case strings.EqualFold(val, "yes"):
			v = Yes
		case strings.EqualFold(val, "no"):
			v = No
		case more():
			ps = append(ps, Problem{Kind: BadValue, Offset: valAt, Label: key,
				Message: signalKeys[i] + ": the value " + strconv.Quote(val) + " is neither yes nor no; it is unknown"})
		}
		if v != Unknown && more() {
			if lower := strings.ToLower(val); val != lower {
				ps = append(ps, Problem{Kind: Tolerated, Offset: valAt, Label: key,
					Message: val + " read as " + lower + ": write values in lowercase"})
			}
		}
		*s.field(i) = v
	}
	return s, ps
}

// signalIndex returns the index in signalKeys of key, compared
// case-insensitively, or -1.
func signalIndex(key string) int {
	for i, k := range signalKeys {
		if strings.EqualFold(key, k) {
			return i
		}
	}
	return -1
}

// SignalFromHeader reads the Content-Signal fields of an HTTP response (as
// Cloudflare sends with some responses): its field lines joined by commas,
// then ParseSignal. With no Content-Signal field it returns the zero Signal
// and no problem. h's keys must be in canonical form, as net/http makes
// them.
func SignalFromHeader(h http.Header) (Signal, []Problem) {
	lines := h.Values(SignalHeaderName)
	if len(lines) == 0 {
		return Signal{}, nil
	}
	return ParseSignal(strings.Join(lines, ", "))
}

// CombineSignals returns the most restrictive preference per use of ss: No
// if any says no, else Yes if any says yes, else Unknown, as Combine does for
// Prefs. It merges the records of the several groups that apply to one
// crawler.
func CombineSignals(ss ...Signal) Signal {
	var out Signal
	for _, s := range ss {
		out.Search = max(out.Search, s.Search)
		out.AIInput = max(out.AIInput, s.AIInput)
		out.AITrain = max(out.AITrain, s.AITrain)
	}
	return out
}
