package status_test

import (
	"fmt"
	"net/http"
	"time"

	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/status"
)

// A 503 with Retry-After: disallow everything for now, and come back when
// the server asks.
func ExampleClassify() {
	now := time.Date(2026, 10, 21, 7, 28, 0, 0, time.UTC)
	res := &fetch.Result{StatusCode: 503, Header: http.Header{"Retry-After": {"600"}}}
	o := status.Classify(res, now)
	fmt.Println(o.Verdict, "|", o.Reason, "|", o.Unreachable(), "|", o.RetryAfter.Sub(now))
	// Output:
	// disallow all | 503 Service Unavailable: unreachable | true | 10m0s
}

// Some crawlers take 401 and 403 as "keep out".
func ExampleOptions_Classify() {
	res := &fetch.Result{StatusCode: 403}
	fmt.Println(status.Classify(res, time.Now()).Verdict)
	fmt.Println(status.Options{DisallowOnAuthError: true}.Classify(res, time.Now()).Verdict)
	// Output:
	// allow all
	// disallow all
}
