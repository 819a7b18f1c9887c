// Package usage reads AIPREF usage preferences: the Content-Usage values of
// robots.txt rules and HTTP responses (draft-ietf-aipref-attach-05), in the
// vocabulary of draft-ietf-aipref-vocab (-07 text, -08 labels), and, kept
// apart, Cloudflare's Content-Signal records.
//
// A Content-Usage value is an RFC 9651 Dictionary such as
// "train-ai=n, search=y". Parse turns one into a Prefs: a preference (Yes,
// No or Unknown) per label, read with Get. FromHeader reads all the
// Content-Usage lines of a response. Combine merges statements from
// several places, most restrictively per label. Validate lists what is
// wrong with a value, for linters; WellFormed says cheaply whether the value
// states anything at all.
//
// The labels are train-ai (AI Training), search (Search) and ai-use (AI
// Use). Each stands alone: a label not stated is Unknown, whatever the
// others say; there is no fallback from one category to another (vocab-07
// §5). Labels outside the vocabulary are ignored as the vocabulary
// requires, but kept and readable with Get, so that a label added by a
// later revision needs no new release of this package.
//
// Content-Signal ("search=yes, ai-train=no") is a different statement with
// different categories; ParseSignal reads it into a Signal, leniently and
// with problems reported (ParseSignalN builds only the first ones).
//
// Work on a value is bounded by its bytes, not by the members it claims:
// Parse and WellFormed allocate a bounded amount whatever the value,
// FromHeader that and one copy of the lines it joins, and Validate and
// ParseSignal what their problems take.
//
// Non-goals: finding the Content-Usage rule of a robots.txt that applies to
// a URL (packages parser and matcher do that and hand the value here),
// serializing arbitrary Structured Fields, and deciding what a crawler does
// with a preference.
package usage
