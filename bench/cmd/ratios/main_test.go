package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRun(t *testing.T) {
	in := `goos: linux
BenchmarkAllowed/typical-217/lib=robots-2     	20000000	        60.00 ns/op	       0 B/op
BenchmarkAllowed/typical-217/lib=robots-2     	20000000	        50.00 ns/op	       0 B/op
BenchmarkAllowed/typical-217/lib=robots-2     	20000000	        70.00 ns/op	       0 B/op
BenchmarkAllowed/typical-217/lib=temoto-2     	  380000	      3000 ns/op	       0 B/op
BenchmarkAllowed/typical-217/lib=grobotstxt-2 	    3900	    290000 ns/op
BenchmarkParseCorpus/lib=robots-2 	      46	  25000000 ns/op	 337.78 MB/s
BenchmarkColdAuthority/lib=robots-2 	      10	  94700000 ns/op
BenchmarkColdAuthority/lib=grobotstxt-2 	      10	  91700000 ns/op
PASS
`
	var out strings.Builder
	require.NoError(t, run(strings.NewReader(in), &out))
	assert.Equal(t, `| benchmark | robots | temoto | grobotstxt |
| --- | ---: | ---: | ---: |
| Allowed/typical-217 | 60 ns | 3 µs (50.0×) | 290 µs (4833.3×) |
| ParseCorpus | 25 ms | — | — |
| ColdAuthority | 94.7 ms | — | 91.7 ms (0.97×) |
`, out.String())

	assert.Error(t, run(strings.NewReader("nothing here\n"), &out))
}
