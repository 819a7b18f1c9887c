package usage

import (
	"strconv"
	"strings"
)

// Problem is something wrong with a Content-Usage or Content-Signal value,
// for a linter to report to the value's author.
type Problem struct {
	// Kind says what is wrong.
	Kind ProblemKind
	// Offset is the byte offset in the value where the problem is.
	Offset int
	// Label is the label or key concerned, as written; empty when the
	// problem is not about one.
	Label string
	// Message explains the problem and its effect in one lower-case phrase.
	Message string
}

// String returns the problem as "byte N: message".
func (p Problem) String() string {
	return "byte " + strconv.Itoa(p.Offset) + ": " + p.Message
}

// ProblemKind classifies problems.
type ProblemKind uint8

// The kinds of problems.
const (
	// Syntax: a Content-Usage value is not an RFC 9651 Dictionary, so every
	// label is unknown (vocab-07 §6.5.1).
	Syntax ProblemKind = iota + 1
	// Empty: the value states no preference at all.
	Empty
	// UnknownLabel: a key outside the vocabulary; readers ignore it
	// (vocab-07 §6.4). Labels of earlier drafts and Content-Signal's names
	// in a Content-Usage value (and the reverse) are reported so.
	UnknownLabel
	// BadValue: a known label with a value other than the Token y or n
	// (Content-Signal: yes or no); the label is unknown (vocab-07 §6.5).
	BadValue
	// Duplicate: a label given more than once; only its last value counts
	// (vocab-07 §6.5.1).
	Duplicate
	// Wildcard: a '*' where a label or a path was meant. Labels have no
	// wildcards, and a Content-Usage path starts with '/' (attach-05 §3.2).
	Wildcard
	// Parameters: a Content-Signal member has ";" parameters, which
	// Content-Signal does not define; they are ignored.
	Parameters
	// Tolerated: a Content-Signal member that ParseSignal reads but that
	// stricter readers may not: uppercase letters, white space around '=',
	// empty members.
	Tolerated
)

var problemNames = [...]string{
	Syntax:       "syntax",
	Empty:        "empty",
	UnknownLabel: "unknown-label",
	BadValue:     "bad-value",
	Duplicate:    "duplicate",
	Wildcard:     "wildcard",
	Parameters:   "parameters",
	Tolerated:    "tolerated",
}

// String returns a short hyphenated name of the kind, such as
// "unknown-label".
func (k ProblemKind) String() string {
	if int(k) < len(problemNames) && problemNames[k] != "" {
		return problemNames[k]
	}
	return "problem(" + strconv.Itoa(int(k)) + ")"
}

// otherNames explains keys that are not labels of the current vocabulary
// but that authors write: labels of earlier drafts, and Content-Signal's
// names (reading 15 of the conformance notes).
var otherNames = map[string]string{
	"ai-train":    "Content-Signal's name; the AIPREF label is train-ai",
	"ai-input":    "a Content-Signal name, not an AIPREF label",
	"bots":        "a label of an earlier draft of the vocabulary, no longer defined",
	"all":         "a label of an earlier draft of the vocabulary, no longer defined",
	"tdm":         "a label of an earlier draft of the vocabulary, no longer defined",
	"ai":          "a label of an earlier draft of the vocabulary, no longer defined",
	"genai":       "a label of an earlier draft of the vocabulary, no longer defined",
	"train-genai": "a label of an earlier draft of the vocabulary, no longer defined",
	"ai-output":   "a label of an earlier draft of the vocabulary, no longer defined",
	"inference":   "a label of an earlier draft of the vocabulary, no longer defined",
}

// WellFormed reports whether a Content-Usage value is an RFC 9651
// Dictionary of at least one member: whether Validate reports neither a
// Syntax nor an Empty problem for it. A value that is not well formed states
// nothing, and Parse reads every label of it as Unknown (vocab-07 §6.5.1).
// Unlike Validate, WellFormed allocates nothing, so that a parser can call
// it on every value and Validate only on the few it reports.
func WellFormed(value string) bool {
	members := 0
	_, ok := parseDictionary(value, func(sfMember) { members++ })
	return ok && members > 0
}

// Validate returns the problems of one Content-Usage value, in the order
// of the value; none when every member states y or n for a label of the
// vocabulary exactly once. A value that is not a Dictionary gets one Syntax
// problem saying where parsing stopped, and a Wildcard problem when it
// starts with '*'.
//
// Validate builds nothing for the members of a value that is not a
// Dictionary, and otherwise nothing per member beyond its problems and a
// record per distinct label (to find the last member of each).
func Validate(value string) []Problem {
	members := 0
	err, ok := parseDictionary(value, func(sfMember) { members++ })
	if !ok {
		ps := []Problem{{Kind: Syntax, Offset: err.off,
			Message: "not an RFC 9651 dictionary (" + err.msg + "): every label is unknown"}}
		if t := strings.TrimLeft(value, " \t"); strings.HasPrefix(t, "*") {
			ps = append(ps, Problem{Kind: Wildcard, Offset: len(value) - len(t),
				Message: "a Content-Usage path starts with '/'; a value starting with '*' has no path and is read whole as preferences"})
		}
		return ps
	}
	if members == 0 {
		return []Problem{{Kind: Empty, Message: "states no preference"}}
	}
	last := map[string]int{} // the offset of each label's last member
	parseDictionary(value, func(m sfMember) { last[m.key] = m.off })
	var ps []Problem
	parseDictionary(value, func(m sfMember) {
		known := knownIndex(m.key) >= 0
		switch {
		case strings.Contains(m.key, "*"):
			ps = append(ps, Problem{Kind: Wildcard, Offset: m.off, Label: m.key,
				Message: strconv.Quote(m.key) + " is not a label: labels have no wildcards; name each category"})
		case !known:
			why := "not a label of the vocabulary (train-ai, search, ai-use)"
			if s, ok := otherNames[m.key]; ok {
				why = s
			}
			ps = append(ps, Problem{Kind: UnknownLabel, Offset: m.off, Label: m.key,
				Message: m.key + ": " + why + "; readers ignore it"})
		}
		if j := last[m.key]; j != m.off {
			ps = append(ps, Problem{Kind: Duplicate, Offset: m.off, Label: m.key,
				Message: m.key + " is given again at byte " + strconv.Itoa(j) + "; only the last value counts"})
		}
		if known && memberPref(m) == Unknown {
			ps = append(ps, Problem{Kind: BadValue, Offset: m.value.off, Label: m.key,
				Message: m.key + ": " + badValue(m) + "; the label is unknown"})
		}
	})
	return ps
}

// badValue says what is wrong with a member whose value is not y or n.
func badValue(m sfMember) string {
	v := m.value
	switch {
	case m.bare:
		return "a key alone is the Boolean true, not a preference: write " + m.key + "=y or " + m.key + "=n"
	case v.kind == sfToken && (strings.EqualFold(v.raw, "y") || strings.EqualFold(v.raw, "yes")):
		return "the value " + v.raw + " is not the Token y (tokens compare exactly)"
	case v.kind == sfToken && (strings.EqualFold(v.raw, "n") || strings.EqualFold(v.raw, "no")):
		return "the value " + v.raw + " is not the Token n (tokens compare exactly)"
	case v.kind == sfToken:
		return "the value " + v.raw + " is neither y nor n"
	case v.kind == sfString:
		return "the value " + v.raw + " is a String: write the Token y or n, without quotes"
	}
	return "the value is " + v.kind.String() + ", not the Token y or n"
}
