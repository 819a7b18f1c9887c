package fetch_test

import (
	"go/build"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// STYLE.md 1, DESIGN.md: imports point one way. fetch uses the standard
// library and internal packages (and x/net for IDNA, HTTP header rules and
// the public suffix list); status uses fetch's types and the standard
// library; internal/authority is below everything.
func TestImportsPointOneWay(t *testing.T) {
	const module = "github.com/crawlkit/robots/"
	tests := []struct {
		dir     string
		allowed []string
	}{
		{".", []string{module + "internal/", "golang.org/x/net/"}},
		{"../status", []string{module + "fetch"}},
		{"../internal/authority", []string{"golang.org/x/net/idna"}},
	}
	for _, tt := range tests {
		pkg, err := build.ImportDir(tt.dir, 0)
		require.NoError(t, err)
		for _, imp := range pkg.Imports {
			first, _, _ := strings.Cut(imp, "/")
			if !strings.Contains(first, ".") {
				continue // the standard library
			}
			ok := false
			for _, a := range tt.allowed {
				ok = ok || imp == a || strings.HasPrefix(imp, a) && strings.HasSuffix(a, "/")
			}
			assert.True(t, ok, "%s imports %s", pkg.ImportPath, imp)
		}
	}
}
