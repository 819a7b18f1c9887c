// Package bypass marks the requests a robots.Client makes for robots.txt
// itself, so that a robots-checking RoundTripper (package client) lets them
// through even when the client's own HTTPClient is wrapped by it, or when a
// robots.txt redirects somewhere else: checking them would wait on the very
// fetch that makes them.
//
// Non-goals: any other request marking; it carries one bit.
package bypass

import "context"

type key struct{}

// background is context.Background marked, made once: every fetch of the
// Client starts from it.
var background = context.WithValue(context.Background(), key{}, true)

// With returns ctx marked as a robots.txt fetch.
func With(ctx context.Context) context.Context {
	if ctx == context.Background() {
		return background
	}
	return context.WithValue(ctx, key{}, true)
}

// Is reports whether ctx is marked as a robots.txt fetch.
func Is(ctx context.Context) bool {
	v, _ := ctx.Value(key{}).(bool)
	return v
}
