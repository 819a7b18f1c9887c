package client

import (
	"errors"
	"net/http"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/usage"
)

// Usage returns the AIPREF usage preferences in effect for what resp holds:
// those its site's robots.txt states for its URL (robots.Client.Usage, on
// resp.Request.URL, the URL after redirects) combined most restrictively,
// label by label, with the response's own Content-Usage header fields
// (draft-ietf-aipref-attach-05 §2 and §3; vocab-07 §5.1). The robots.txt
// answer comes from rc's cache; resp.Request's context bounds a fetch.
//
//	resp, err := hc.Get(u) // hc := client.Wrap(…, rc)
//	prefs, err := client.Usage(rc, resp)
//	if prefs.Get(usage.TrainAI) == usage.No { … }
//
// Combining never weakens a No: a label any source states as n is n. But
// five readings, each required by the drafts, leave a label that was written
// as n somewhere Yes or Unknown:
//
//   - a later value of the same label wins within one statement, and the
//     header's lines are one statement (RFC 9651 §4.2): "train-ai=n" then a
//     line "train-ai=y" is y;
//
//   - a syntax error anywhere in the header's lines, an empty line
//     included, makes every label of the header Unknown (vocab-07 §6.5.1);
//
//   - only the tokens y and n count: "no", "N", "?0" or a string "n" is
//     Unknown (vocab-07 §6.4);
//
//   - robots.txt's longest matching Content-Usage rule is its whole
//     statement for the URL: a label that rule does not state is Unknown
//     though a shorter rule says n, and a longer rule that does not parse
//     hides the shorter one (attach-05 §3.1);
//
//   - a URL robots.txt disallows has no robots.txt preferences, so only the
//     header counts (attach-05 §3).
func Usage(rc *robots.Client, resp *http.Response) (usage.Prefs, error) {
	if resp == nil || resp.Request == nil || resp.Request.URL == nil {
		return usage.Prefs{}, &robots.Error{Op: "usage", Err: robots.ErrInvalidURL}
	}
	if rc == nil {
		return usage.Prefs{}, &robots.Error{Op: "usage", URL: resp.Request.URL.Redacted(), Err: errNilClient}
	}
	site, err := rc.Usage(resp.Request.Context(), resp.Request.URL.String())
	if err != nil {
		return usage.Prefs{}, err
	}
	return usage.Combine(site, usage.FromHeader(resp.Header)), nil
}

// errNilClient is why Usage cannot answer without a robots.Client.
var errNilClient = errors.New("client: Usage needs a robots.Client")
