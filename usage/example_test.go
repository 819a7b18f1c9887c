package usage_test

import (
	"fmt"
	"net/http"

	"github.com/crawlkit/robots/usage"
)

// Read the preferences a response states, combine them with those of
// robots.txt, and decide.
func Example() {
	// From the Content-Usage rule of robots.txt that applies to the URL.
	fromRobots := usage.Parse("train-ai=y, search=y")
	// From the response's header.
	h := http.Header{}
	h.Add("Content-Usage", "train-ai=n")
	fromHeader := usage.FromHeader(h)

	p := usage.Combine(fromRobots, fromHeader) // the most restrictive wins
	fmt.Println(p)
	if p.Get(usage.TrainAI) == usage.No {
		fmt.Println("do not train on it")
	}
	fmt.Println("ai-use:", p.Get(usage.AIUse)) // not stated: no fallback
	// Output:
	// train-ai=n, search=y
	// do not train on it
	// ai-use: unknown
}

// One malformed member makes the whole value unreadable.
func ExampleParse() {
	fmt.Println(usage.Parse("train-ai=n, search=y").Get(usage.Search))
	fmt.Println(usage.Parse("train-ai=n, Search=y").Get(usage.TrainAI))
	fmt.Println(usage.Parse(`train-ai="n", search=y`).Get(usage.TrainAI)) // a String, not the Token n
	// Output:
	// y
	// unknown
	// unknown
}

// Report what is wrong with a value, for its author.
func ExampleValidate() {
	for _, p := range usage.Validate("search=yes, ai-train=no") {
		fmt.Println(p.Kind, p)
	}
	// Output:
	// bad-value byte 7: search: the value yes is not the Token y (tokens compare exactly); the label is unknown
	// unknown-label byte 12: ai-train: Content-Signal's name; the AIPREF label is train-ai; readers ignore it
}

// Read Cloudflare's Content-Signal record, which is not AIPREF.
func ExampleParseSignal() {
	s, problems := usage.ParseSignal("search=yes, AI-Train=no")
	fmt.Println(s.Search, s.AIInput, s.AITrain)
	fmt.Println(s)
	for _, p := range problems {
		fmt.Println(p)
	}
	// Output:
	// y unknown n
	// search=yes, ai-train=no
	// byte 12: AI-Train read as ai-train: write names in lowercase
}
