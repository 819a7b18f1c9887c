package parser_test

import (
	"fmt"

	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
)

// Compiling many files in a row: each parse reuses the memory of the one
// before, and the Matcher keeps nothing of it.
func ExampleParseFunc() {
	files := [][]byte{
		[]byte("User-agent: *\nDisallow: /private/\n"),
		[]byte("User-agent: ExampleBot\nAllow: /\nUser-agent: *\nDisallow: /\n"),
	}
	var compiled []*matcher.Matcher
	for _, body := range files {
		parser.ParseFunc(body, func(r *parser.Robots) {
			compiled = append(compiled, matcher.Compile(r, "ExampleBot"))
		})
	}
	for _, m := range compiled {
		fmt.Println(m.Allowed("/private/x"))
	}
	// Output:
	// false
	// true
}
