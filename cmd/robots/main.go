// Command robots decides URLs against robots.txt, shows what a site's
// robots.txt says, and finds the mistakes in one, following RFC 9309 and
// Google's interpretation as the library github.com/crawlkit/robots does.
//
//	robots check [flags] URL...     ALLOWED or DISALLOWED, and why
//	robots fetch [flags] URL        what the site's robots.txt is and means
//	robots lint [flags] PATH|URL    the problems in a robots.txt, for site owners
//	robots usage [flags] URL        the AIPREF usage preferences for a URL
//
// It uses the library's public API only, so what it prints is what a crawler
// using the library decides. Run "robots help" or "robots <command> -h" for
// the flags and exit statuses of each command.
//
// Non-goals: crawling, rate limiting, and editing robots.txt files.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/crawlkit/robots/fetch"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Exit statuses shared by the commands.
const (
	exitOK      = 0
	exitFinding = 1 // check: some URL disallowed; lint: findings; fetch: unreachable
	exitError   = 2 // bad usage, unreadable input, invalid URLs
)

const robotsUsage = `robots decides URLs against robots.txt (RFC 9309, as Google reads it).

Usage:
  robots check [flags] URL...     decide each URL: ALLOWED or DISALLOWED, and why
  robots fetch [flags] URL        fetch a site's robots.txt and show what it says
  robots lint [flags] PATH|URL    find the problems in a robots.txt
  robots usage [flags] URL        show the AIPREF usage preferences for a URL
  robots help [command]           show this help, or a command's

Examples:
  robots check -file testdata/rfc9309-example.txt -agent foobot https://example.com/example/page.html
  robots check -agent ExampleBot https://example.com/private/page https://example.com/
  cat urls.txt | robots check -file robots.txt -agent ExampleBot -json
  robots fetch https://example.com/
  robots lint robots.txt
  robots usage -agent ExampleBot -header 'Content-Usage: train-ai=n' https://example.com/blog/post

Run "robots <command> -h" for a command's flags and exit statuses.
`

// command is one subcommand: its name, its usage text, and what it runs.
type command struct {
	name  string
	usage string
	run   func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

var commands = []command{
	{"check", checkUsage, runCheck},
	{"fetch", fetchUsage, runFetch},
	{"lint", lintUsage, runLint},
	{"usage", usageCmdUsage, runUsage},
}

// run runs the command line args (without the program name) and returns the
// exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, robotsUsage)
		return exitError
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			for _, c := range commands {
				if c.name == args[1] {
					fmt.Fprint(stdout, c.usage)
					return exitOK
				}
			}
			fmt.Fprintf(stderr, "robots: no command %q\n\n%s", args[1], robotsUsage)
			return exitError
		}
		fmt.Fprint(stdout, robotsUsage)
		return exitOK
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(args[1:], stdin, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "robots: no command %q\n\n%s", args[0], robotsUsage)
	return exitError
}

// newFlags returns a flag set for a command whose usage is usageText and its
// flags; parse errors go to stderr (see parseFlags).
func newFlags(name, usageText string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usageText)
		fmt.Fprintln(fs.Output(), "\nFlags:")
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args into fs. ok is false when the command is to stop
// with status code: after -h (0, usage on stdout) or a bad flag (2, the
// message and usage on stderr). The usage is printed once: flag's own call
// of fs.Usage during Parse is silenced.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) (code int, ok bool) {
	usage := fs.Usage
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.Usage = usage
	switch {
	case err == nil:
		return 0, true
	case errors.Is(err, flag.ErrHelp):
		out := fs.Output()
		fs.SetOutput(stdout)
		usage()
		fs.SetOutput(out)
		return exitOK, false
	}
	usage() // after flag's message, on stderr
	return exitError, false
}

// defaultUA is the User-Agent of the command's robots.txt requests.
const defaultUA = defaultAgent + "/1.0 (+https://github.com/crawlkit/robots)"

// fetchFlags adds to fs the flags of a command that fetches robots.txt: the
// User-Agent header and the deadline.
func fetchFlags(fs *flag.FlagSet) (ua *string, timeout *time.Duration) {
	ua = fs.String("ua", defaultUA, "the User-Agent header of robots.txt requests")
	timeout = fs.Duration("timeout", 30*time.Second, "the deadline of one robots.txt fetch, redirects included")
	return ua, timeout
}

// errorf prints a message for the command to stderr, prefixed "robots cmd: ".
func errorf(stderr io.Writer, cmd, format string, a ...any) {
	fmt.Fprintf(stderr, "robots %s: %s\n", cmd, strings.TrimSuffix(fmt.Sprintf(format, a...), "\n"))
}

// count returns n and the noun, plural unless n is 1: "1 problem",
// "2 problems", "0 groups".
func count(n int, noun string) string {
	return strconv.Itoa(n) + " " + plural(n, noun)
}

// plural returns noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n != 1 {
		return noun + "s"
	}
	return noun
}

// readRobots reads the robots.txt file at path as the fetcher reads a
// response body: the first fetch.DefaultMaxBytes, less a line the cap cuts,
// and never a byte further, so that a huge or endless file (/dev/zero)
// costs no more than a normal one. Result.Truncated reports a longer file.
func readRobots(path string) (*fetch.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fr, err := fetch.New(fetch.Config{UserAgent: defaultUA})
	if err != nil {
		f.Close()
		return nil, err
	}
	resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: f, ContentLength: -1}
	res, err := fr.Read(localRobotsURL, resp) // closes f
	if err != nil {
		return nil, err
	}
	if res.Err != nil {
		return nil, &os.PathError{Op: "read", Path: path, Err: res.Err.Err}
	}
	return res, nil
}

// localRobotsURL stands for a local file where the fetcher wants a URL.
const localRobotsURL = "http://localhost/robots.txt"
