package freshness

import (
	"testing"

	"github.com/pquerna/cachecontrol/cacheobject"
	"github.com/stretchr/testify/assert"
)

// fresh returns directives as parseCacheControl starts them.
func fresh() directives {
	return directives{ResponseCacheDirectives: cacheobject.ResponseCacheDirectives{
		MaxAge: -1, SMaxAge: -1, StaleIfError: -1, StaleWhileRevalidate: -1}}
}

// lifetimeFields are the fields of directives a lifetime reads.
func lifetimeFields(d directives) [6]any {
	return [6]any{d.NoStore, d.NoCachePresent, d.MaxAge, d.SMaxAge, d.badMaxAge, d.badSMaxAge}
}

// The directives common takes are the usual ones, and it makes of each,
// after any other, what cacheobject's parse makes of it.
func FuzzCommonIsParse(f *testing.F) {
	for _, d := range []string{"max-age=86400", " max-age=0", "\ts-maxage=600", "max-age=000000012", "max-age=999999999",
		"public", " private", "no-store", "no-cache", "must-revalidate", "immutable", "no-transform", "proxy-revalidate",
		"max-age=1234567890", "max-age=", "max-age", "Max-Age=5", "max-age=5 ", "max-age=-1", "max-age=\"5\"", "public ",
		"no-cache=\"Set-Cookie\"", "s-maxage=1h", "stale-if-error=5", "x-robots=1", ""} {
		f.Add(d, "max-age=300")
		f.Add(d, "")
	}
	f.Fuzz(func(t *testing.T, d, before string) {
		fast, slow := fresh(), fresh()
		if before != "" {
			fast.parse(before)
			slow.parse(before)
		}
		if !fast.common(d) {
			return
		}
		slow.parse(d)
		assert.Equal(t, lifetimeFields(slow), lifetimeFields(fast), "%q after %q", d, before)
	})
}

// The directives nearly every server sends take the common path.
func TestCommonDirectives(t *testing.T) {
	for _, d := range []string{"max-age=86400", " public", "s-maxage=60", "no-cache", "no-store", " must-revalidate", "private"} {
		all := fresh()
		assert.True(t, all.common(d), "%q", d)
	}
	for _, d := range []string{"Max-Age=60", "max-age=1234567890", "max-age=", `max-age="60"`, "no-cache=\"x\"", "stale-if-error=60"} {
		all := fresh()
		assert.False(t, all.common(d), "%q", d)
	}
}

// nextDirective splits at the commas outside quoted strings, as
// cacheobject reads them.
func TestNextDirective(t *testing.T) {
	split := func(v string) []string {
		var out []string
		for more := true; more; {
			var d string
			d, v, more = nextDirective(v)
			out = append(out, d)
		}
		return out
	}
	assert.Equal(t, []string{"public", " max-age=60"}, split("public, max-age=60"))
	assert.Equal(t, []string{`no-cache="a, b"`, " max-age=1"}, split(`no-cache="a, b", max-age=1`))
	assert.Equal(t, []string{`x="a\", b"`, ""}, split(`x="a\", b",`))
	assert.Equal(t, []string{""}, split(""))
}
