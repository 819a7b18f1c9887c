package usage

import (
	"net/http"
	"strings"
)

// Parse reads one Content-Usage value: an RFC 9651 Dictionary whose keys
// are labels and whose values are the Tokens y and n (vocab-07 §6,
// attach-05 §2 and §3).
//
// Following vocab-07 §6.4 to §6.5.2:
//   - if the value is not a Dictionary, every label is Unknown; one bad
//     member spoils them all;
//   - labels and tokens compare exactly: "Train-ai" is not a key, and "Y" or
//     "yes" is not y;
//   - a label whose value is anything but the Token y or n (a String, a bare
//     key, which is the Boolean true, a number, an Inner List, another
//     Token) is Unknown; the other labels keep their values;
//   - when a label appears more than once, only its last value counts, even
//     if it is more permissive;
//   - labels outside the vocabulary and all parameters are ignored (labels
//     outside the vocabulary can still be read with Get, see
//     MaxExtraLabels).
//
// The value is parsed as RFC 9651 §4.2 says: leading SP is skipped, but not
// HTAB, so a caller taking the value from a robots.txt line trims it first.
//
// Parse allocates the canonical string of the labels outside the
// vocabulary it keeps and, for a value of more than 8 of them, 1.5 KiB to
// follow them (see MaxExtraLabels), whatever the size of the value.
func Parse(value string) Prefs {
	var p Prefs
	var small [8]extraLabel
	extras := extraSet{es: small[:0]}
	if _, ok := parseDictionary(value, func(m sfMember) {
		v := memberPref(m)
		if i := knownIndex(m.key); i >= 0 {
			p.set(i, v)
			return
		}
		extras.state(m.key, v)
	}); !ok {
		return Prefs{}
	}
	p.extra = writeExtra(extras.es[:min(len(extras.es), MaxExtraLabels)])
	return p
}

// memberPref is the preference a Dictionary member states for its key.
func memberPref(m sfMember) Pref {
	if m.bare || m.value.kind != sfToken {
		return Unknown
	}
	return prefOfToken(m.value.raw)
}

// FromHeader reads the Content-Usage fields of an HTTP response. All its
// field lines are combined into one value, joined by commas, before
// parsing, as RFC 9651 §4.2 requires: a label repeated on a later line wins
// even when more permissive, and one malformed line (an empty one included)
// makes every label Unknown. With no Content-Usage field, nothing is
// stated. h's keys must be in canonical form, as net/http makes them.
func FromHeader(h http.Header) Prefs {
	lines := h.Values(HeaderName)
	switch len(lines) {
	case 0:
		return Prefs{}
	case 1:
		return Parse(lines[0])
	}
	return Parse(strings.Join(lines, ", "))
}
