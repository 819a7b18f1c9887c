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
