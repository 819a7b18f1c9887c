package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/internal/urlpath"
	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
	"github.com/crawlkit/robots/status"
	"github.com/crawlkit/robots/usage"
)

const lintUsage = `Usage: robots lint [flags] PATH|URL

Finds the problems in a robots.txt, for the people who write one: each line
that crawlers read only leniently or not at all (misspelled keys, missing
colons, rules before any User-agent, unknown keys, bad values, bytes that are
not UTF-8, ...), rules that can never win because another rule always beats
them or states them already (in the same or another spelling: /a%62 is
/ab), patterns that cannot match (not starting with / or *, or holding
white space), records crawlers do not support (Noindex), a file longer than the
500 KiB crawlers read, and HTML served as robots.txt (once, with the number
of lines crawlers skip or misread, not a line each). One line each:

  robots.txt:5: misspelling: "Dissallow" accepted as disallow — ...

the file and line, the kind, what is wrong, and what crawlers do about it.

It checks the AIPREF Content-Usage rules (draft-ietf-aipref-attach-05 §3)
too, each problem of each value: one that is not an RFC 9651 Dictionary
(usage-syntax: the rule states nothing), states nothing (usage-empty),
names a label outside the vocabulary (usage-unknown-label: ignored, the
others count), gives a value other than y or n (usage-bad-value), repeats
a label (usage-duplicate), or holds a '*' where a path or label belongs
(usage-wildcard). Cloudflare's Content-Signal records are checked apart
(signal-...: unknown names, values other than yes and no, repeats,
parameters, and what lenient readers tolerate). Past the first 10 problems
of a value, the parser's first 1000 warnings, and the first 1000 records
crawlers do not support, it counts the rest.

PATH is a local file; a URL (http or https) is fetched: the robots.txt of its
site, or the URL itself when its path is /robots.txt. When the site has no
robots.txt (404, 410), or another answer stands for one, that is the report:
the page the server sent instead, such as an HTML error page, is not linted.

Exit status: 0 when there is nothing to report, 1 when there is, 2 on bad
flags, an unreadable file or an invalid URL.
`

// maxBytes is the least every crawler reads of robots.txt (RFC 9309 §2.5);
// Google reads no more.
const maxBytes = fetch.DefaultMaxBytes

func runLint(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("lint", lintUsage, stderr)
	ua, timeout := fetchFlags(fs)
	if code, ok := parseFlags(fs, args, stdout); !ok {
		return code
	}
	if fs.NArg() != 1 {
		errorf(stderr, "lint", "want exactly one file or URL, got %d (see robots lint -h)", fs.NArg())
		return exitError
	}
	arg := fs.Arg(0)
	var body []byte
	var findings []finding
	name := filepath.Base(arg)
	if strings.HasPrefix(arg, "http://") || strings.HasPrefix(arg, "https://") {
		robotsURL, err := robotsURLOf(arg, true)
		if err != nil {
			errorf(stderr, "lint", "%v", err)
			return exitError
		}
		res, err := fetchRobots(robotsURL, *ua, *timeout)
		if err != nil {
			errorf(stderr, "lint", "%v", err)
			return exitError
		}
		name = robotsURL
		out := status.Classify(res, res.End)
		if f, ok := fetchFinding(out); ok {
			findings = append(findings, f)
		}
		if out.Verdict != status.Rules {
			// No file: what the server sent instead, such as an HTML 404
			// page, is nothing crawlers read.
			if report(stdout, name, findings) {
				return exitFinding
			}
			return exitOK
		}
		body = res.Body
		if res.Truncated {
			findings = append(findings, finding{kind: "too-large", msg: fmt.Sprintf("longer than %d bytes", maxBytes),
				why: "crawlers read only the first 500 KiB (RFC 9309 §2.5) and ignore the rest"})
		}
		if ct := res.Header.Get("Content-Type"); strings.HasPrefix(strings.ToLower(ct), "text/html") {
			findings = append(findings, finding{kind: "html", msg: "served as " + ct,
				why: "an HTML page holds no rules; serve a text/plain file"})
		}
	} else {
		res, err := readRobots(arg)
		if err != nil {
			errorf(stderr, "lint", "%v", err)
			return exitError
		}
		body = res.Body
		if res.Truncated {
			size := fmt.Sprintf("longer than %d bytes", maxBytes)
			if fi, err := os.Stat(arg); err == nil && fi.Mode().IsRegular() {
				size = fmt.Sprintf("%d bytes", fi.Size())
			}
			findings = append(findings, finding{line: firstUnread(body), kind: "too-large",
				msg: fmt.Sprintf("the file is %s; crawlers read the first %d, up to the line before this one", size, maxBytes),
				why: "crawlers read only the first 500 KiB (RFC 9309 §2.5) and ignore the rest"})
		}
	}
	findings = append(findings, lint(body)...)
	if report(stdout, name, findings) {
		return exitFinding
	}
	return exitOK
}

// report writes the findings of the file name in line order, and how many
// there are; it reports whether there are any.
func report(w io.Writer, name string, findings []finding) bool {
	slices.SortStableFunc(findings, func(a, b finding) int { return a.line - b.line })
	problems := 0
	for _, f := range findings {
		fmt.Fprintln(w, f.format(name))
		problems += max(f.unlisted, 1)
	}
	if len(findings) == 0 {
		return false
	}
	fmt.Fprintf(w, "%s: %s\n", name, count(problems, "problem"))
	return true
}

// finding is one problem of a robots.txt, or a count of those not listed.
type finding struct {
	line int    // 1-based; 0 for the file as a whole
	kind string // a short hyphenated name
	msg  string // what is wrong
	why  string // what crawlers do about it, for the file's owner

	// unlisted, when not 0, makes the finding stand for that many problems
	// that are counted but not listed, one by one, such as the warnings
	// past the parser's first MaxWarnings.
	unlisted int
}

func (f finding) format(name string) string {
	loc := name
	if f.line > 0 {
		loc += ":" + strconv.Itoa(f.line)
	}
	s := loc + ": " + f.kind + ": " + f.msg
	if f.why != "" {
		s += " — " + f.why
	}
	return s
}

// fetchFinding reports a fetch that did not yield a file, if it did not.
func fetchFinding(out status.Outcome) (finding, bool) {
	switch {
	case out.Unreachable():
		return finding{kind: "unreachable", msg: out.Reason,
			why: "while robots.txt is unreachable, crawlers fetch nothing from the site (RFC 9309 §2.3.1.4)"}, true
	case out.StatusCode == http.StatusNotFound || out.StatusCode == http.StatusGone:
		return finding{kind: "no-robots-txt", msg: "there is no robots.txt (" + out.Reason + ")",
			why: "without a robots.txt, crawlers may fetch everything (RFC 9309 §2.3.1.3)"}, true
	case out.Verdict == status.AllowAll && out.Class != status.Empty:
		return finding{kind: "unavailable", msg: out.Reason,
			why: "without a robots.txt, crawlers may fetch everything (RFC 9309 §2.3.1.3)"}, true
	}
	return finding{}, false
}

// explanations say, for each kind of parser warning, what crawlers do.
var explanations = map[parser.WarningKind]string{
	parser.MissingColon:  `Google accepts it; other crawlers may skip the line: write "Key: value"`,
	parser.Misspelling:   "Google accepts this spelling; other crawlers may skip the line: write the standard key",
	parser.UnknownKey:    "crawlers ignore records they do not know",
	parser.OutsideGroup:  "crawlers ignore rules before the first User-agent line (RFC 9309 §2.2.2)",
	parser.LineTooLong:   "Google reads only the first 16,663 bytes of a line",
	parser.InvalidUTF8:   "robots.txt must be UTF-8 (RFC 9309 §2.3); patterns with other bytes may not match what you meant",
	parser.NULByte:       "crawlers read a line only up to a NUL byte",
	parser.BOMNotAtStart: "a byte order mark is skipped only at the very start of the file; here it spoils the key",
	parser.Unparsable:    `crawlers skip lines that are not "key: value"`,
	parser.InvalidValue:  "crawlers ignore the value",
}

// unsupported are records site owners write that crawlers do not obey.
var unsupported = map[string]string{
	"noindex":   "Google stopped reading Noindex in robots.txt in 2019: use a robots meta tag or X-Robots-Tag header",
	"nofollow":  "not a robots.txt rule: use a robots meta tag or X-Robots-Tag header",
	"noarchive": "not a robots.txt rule: use a robots meta tag or X-Robots-Tag header",
}

// lint returns the problems of a robots.txt body.
func lint(body []byte) []finding {
	r := parser.Parse(body)
	aipref, validated := aiprefFindings(r)
	var fs []finding
	if isHTML(body) {
		// One finding for the page, not a warning for each of its lines.
		fs = append(fs, htmlFinding(body, r))
	} else {
		fs = appendWarnings(fs, body, r, validated)
	}
	fs = append(fs, aipref...)
	fs = appendUnsupported(fs, body, r)
	for _, g := range r.Groups {
		for _, rl := range g.Rules {
			switch {
			case rl.Pattern == "":
			case rl.Pattern[0] != '/' && rl.Pattern[0] != '*':
				fs = append(fs, finding{line: rl.Line, kind: "never-matches", msg: strconv.Quote(rl.Pattern) + " starts with neither / nor *",
					why: "paths start with /, so this rule matches nothing"})
			case strings.ContainsAny(rl.Pattern, " \t"):
				fs = append(fs, finding{line: rl.Line, kind: "never-matches", msg: strconv.Quote(rl.Pattern) + " holds white space",
					why: "one rule takes one pattern: write one line per path"})
			}
		}
		fs = append(fs, shadowed(g)...)
	}
	return fs
}

// appendWarnings appends to fs the warnings of body, parsed as r, and a
// count of those r did not keep. It leaves out the invalid-value warnings
// of the lines aiprefFindings validated, kept or not: it reports each
// problem of their values.
func appendWarnings(fs []finding, body []byte, r *parser.Robots, validated map[int]bool) []finding {
	line := 0 // the last line of a kept warning
	for _, w := range r.Warnings {
		line = w.Line
		if w.Kind == parser.InvalidValue && validated[w.Line] {
			continue // aipref reports each of the value's problems
		}
		fs = append(fs, finding{line: w.Line, kind: w.Kind.String(), msg: w.Message, why: explanations[w.Kind]})
	}
	if n := r.OmittedWarnings; n > 0 {
		// The parser keeps the first warnings, in line order, and counts
		// the rest: they are on the last line of one kept, or later.
		n -= omittedInvalid(body, r, validated, line)
		if n <= 0 {
			return fs
		}
		fs = append(fs, finding{line: line, kind: "more",
			msg:      count(n, "more warning") + " on later lines, not listed",
			why:      fmt.Sprintf("the parser keeps the first %d warnings of a file; fix these and lint again", parser.MaxWarnings),
			unlisted: n})
	}
	return fs
}

// omittedInvalid returns how many of the warnings r counts but does not
// keep are invalid-value warnings of the lines aiprefFindings validated,
// on line last, the last of a kept warning, and after it. Those lines are
// parsed again (see reparse), in a group, as they are in the file.
func omittedInvalid(body []byte, r *parser.Robots, validated map[int]bool, last int) int {
	n := 0
	for _, w := range r.Warnings {
		if w.Line == last && w.Kind == parser.InvalidValue && validated[last] {
			n-- // kept: not among those r counts
		}
	}
	keep := func(num int, _ []byte) bool { return num >= last && validated[num] }
	inGroup := func(int) bool { return true } // validated records are a group's
	reparse(body, keep, inGroup, func(p *parser.Robots, _ []int) {
		for _, w := range p.Warnings {
			if w.Kind == parser.InvalidValue && w.Line > 1 {
				n++
			}
		}
	})
	return max(n, 0)
}

// htmlFinding reports body, parsed as r, as an HTML page, with the number
// of its lines the parser warns about.
func htmlFinding(body []byte, r *parser.Robots) finding {
	f := finding{kind: "html", msg: "the file is an HTML page, not robots.txt",
		why: "an HTML page holds no rules; serve a text/plain robots.txt"}
	if n := warnedLines(body, r); n > 0 {
		f.msg += fmt.Sprintf(": crawlers skip or misread %d of its lines", n)
	}
	return f
}

// warnedLines returns the number of lines of body, parsed as r, that the
// parser warns about. Past the lines of the warnings r keeps, the rest of
// body is parsed again (see reparse).
func warnedLines(body []byte, r *parser.Robots) int {
	n, last := 0, 0
	for _, w := range r.Warnings {
		if w.Line != last {
			n, last = n+1, w.Line
		}
	}
	if r.OmittedWarnings == 0 {
		return n
	}
	keep := func(num int, _ []byte) bool { return num > last }
	reparse(body, keep, inGroupFrom(r), func(p *parser.Robots, _ []int) {
		prev := 0
		for _, w := range p.Warnings {
			if w.Line != prev && w.Line > 1 { // line 1 is the one reparse adds
				n, prev = n+1, w.Line
			}
		}
	})
	return n
}

// linesPerRange is how many lines reparse parses at once: few enough that
// the parser keeps all their warnings (a line draws at most 7) and records.
const linesPerRange = parser.MaxWarnings / 10

// reparse parses again the lines of body that keep selects, linesPerRange
// at a time, and calls fn with the Robots of each batch and the numbers
// in body of its lines: line i+2 of the batch is line nums[i] of body.
// Line 1 of a batch is a user-agent line when inGroup (if not nil) reports
// that body has one before the batch's first line, so that the batch's
// rules and records are read as in body; an empty line otherwise, so that
// a byte order mark at the start of the batch is read as in body's middle.
// What depends on the lines before is lost: a Crawl-delay that repeats one
// of the batch before draws no warning.
func reparse(body []byte, keep func(num int, line []byte) bool, inGroup func(num int) bool, fn func(p *parser.Robots, nums []int)) {
	var batch []byte
	nums := make([]int, 0, linesPerRange)
	eachBodyLine(body, func(num int, line []byte) {
		if !keep(num, line) {
			return
		}
		if len(nums) == 0 {
			batch = batch[:0]
			if inGroup != nil && inGroup(num) {
				batch = append(batch, "User-agent: lint"...)
			}
			batch = append(batch, '\n')
		}
		batch = append(append(batch, line...), '\n')
		if nums = append(nums, num); len(nums) == linesPerRange {
			fn(parser.Parse(batch), nums)
			nums = nums[:0]
		}
	})
	if len(nums) > 0 {
		fn(parser.Parse(batch), nums)
	}
}

// inGroupFrom returns a function that reports whether r, parsed from a
// body, has a user-agent line before line num of that body.
func inGroupFrom(r *parser.Robots) func(num int) bool {
	return func(num int) bool { return len(r.Groups) > 0 && r.Groups[0].Agents[0].Line < num }
}

// maxUnsupported is how many records crawlers do not support (Noindex and
// the like) lint lists; it counts the rest, so that a file of nothing else
// costs a thousand lines of report, not one per line.
const maxUnsupported = 1000

// appendUnsupported appends to fs the records of body, parsed as r, that
// crawlers do not support: the first maxUnsupported of them and a count of
// the rest. The parser keeps only the first parser.MaxOther records it
// does not interpret; past them, the lines that may hold one are parsed
// again (see reparse), apart from the others, which reads them as in the
// file: Noindex and the like are records wherever they stand.
func appendUnsupported(fs []finding, body []byte, r *parser.Robots) []finding {
	listed, more, last := 0, 0, 0
	add := func(o parser.Record) {
		why, ok := unsupported[strings.ToLower(o.Key)]
		if !ok {
			return
		}
		if listed == maxUnsupported {
			more++
			return
		}
		listed++
		last = o.Line
		fs = append(fs, finding{line: o.Line, kind: "unsupported", msg: o.Key + " is not part of robots.txt", why: why})
	}
	for _, o := range r.Other {
		add(o)
	}
	if r.OmittedOther > 0 {
		// Past the records the parser kept, the lines that may hold one.
		from := r.Other[len(r.Other)-1].Line + 1
		keep := func(num int, line []byte) bool { return num >= from && mayBeUnsupported(line) }
		reparse(body, keep, nil, func(p *parser.Robots, nums []int) {
			for _, o := range p.Other {
				o.Line = nums[o.Line-2]
				add(o)
			}
		})
	}
	if more > 0 {
		fs = append(fs, finding{line: last, kind: "more",
			msg:      count(more, "more record") + " crawlers do not support on later lines, not listed",
			why:      fmt.Sprintf("lint lists the first %d such records", maxUnsupported),
			unlisted: more})
	}
	return fs
}

// mayBeUnsupported reports whether line holds, in any case, the key of a
// record in unsupported.
func mayBeUnsupported(line []byte) bool {
	for i := 0; i+len("noindex") <= len(line); i++ {
		if line[i]|0x20 != 'n' || line[i+1]|0x20 != 'o' {
			continue
		}
		for k := range unsupported {
			if i+len(k) <= len(line) && strings.EqualFold(string(line[i:i+len(k)]), k) {
				return true
			}
		}
	}
	return false
}

// eachBodyLine calls fn with each line of body and its 1-based number, as
// the parser numbers them: lines end at LF, CR or CRLF.
func eachBodyLine(body []byte, fn func(num int, line []byte)) {
	for num := 1; ; num++ {
		i := bytes.IndexAny(body, "\r\n")
		if i < 0 {
			fn(num, body)
			return
		}
		fn(num, body[:i])
		if body[i] == '\r' && i+1 < len(body) && body[i+1] == '\n' {
			i++
		}
		body = body[i+1:]
	}
}

// maxValueProblems is how many problems lint lists of one Content-Usage or
// Content-Signal value; it counts the rest, so that a hostile value costs
// a few lines of report, not one per byte.
const maxValueProblems = 10

// usageWhy says, for each kind of problem of a Content-Usage value, what
// readers do about it (the problem's message says what is wrong).
var usageWhy = map[usage.ProblemKind]string{
	usage.Syntax:       "a Content-Usage value is an RFC 9651 Dictionary; one that is not states nothing (vocab-07 §6.5.1)",
	usage.Empty:        "the rule states nothing: every label is unknown (vocab-07 §3); write labels, such as train-ai=n",
	usage.UnknownLabel: "the rule's other labels still count (vocab-07 §6.4)",
	usage.BadValue:     "only the Tokens y and n state a preference (vocab-07 §6.2, §6.5); the rule's other labels still count",
	usage.Duplicate:    "even when the last is the more permissive (vocab-07 §6.5.1): state each label once",
	usage.Wildcard:     "a path pattern may hold * but starts with / (attach-05 §3.2)",
}

// labelWildcardWhy explains a Wildcard problem of a label, not a path.
const labelWildcardWhy = "a key with * is no label of the vocabulary: readers ignore it (vocab-07 §6.1, §6.4)"

// signalWhy says, for each kind of problem of a Content-Signal value, what
// readers do about it. Content-Signal is Cloudflare's record, not AIPREF.
var signalWhy = map[usage.ProblemKind]string{
	usage.Empty:        "the record states nothing; write search=yes, ai-train=no or the like",
	usage.UnknownLabel: "Content-Signal has three names: search, ai-input and ai-train",
	usage.BadValue:     "Content-Signal's values are yes and no",
	usage.Duplicate:    "state each name once",
	usage.Parameters:   "Content-Signal defines no parameters",
	usage.Tolerated:    "lenient readers accept it, stricter ones may not: write the canonical form, such as search=yes, ai-train=no",
}

// aiprefFindings returns the problems of the Content-Usage rules of r's
// groups (usage.Validate) and of its Content-Signal records
// (usage.ParseSignal), each with its line, and the lines it validated.
// Records before any group are not validated: the parser reports them as
// outside any group, and crawlers ignore them.
func aiprefFindings(r *parser.Robots) ([]finding, map[int]bool) {
	var fs []finding
	validated := map[int]bool{}
	for _, g := range r.Groups {
		for _, cu := range g.ContentUsage {
			validated[cu.Line] = true
			fs = appendProblems(fs, cu.Line, "usage-", cu.Preferences, usage.Validate(cu.Preferences), usageWhy)
		}
	}
	for _, cs := range r.ContentSignals {
		validated[cs.Line] = true
		_, ps := usage.ParseSignal(cs.Value)
		fs = appendProblems(fs, cs.Line, "signal-", cs.Value, ps, signalWhy)
	}
	return fs, validated
}

// appendProblems appends to fs the problems ps of value, on line, the
// first maxValueProblems of them and a count of the rest.
func appendProblems(fs []finding, line int, prefix, value string, ps []usage.Problem, why map[usage.ProblemKind]string) []finding {
	for i, p := range ps {
		if i == maxValueProblems {
			n := len(ps) - i
			return append(fs, finding{line: line, kind: "more",
				msg:      count(n, "more problem") + " of this value, not listed",
				why:      fmt.Sprintf("lint lists the first %d problems of a value", maxValueProblems),
				unlisted: n})
		}
		msg := p.Message
		if p.Label == "" && value != "" {
			// Where it is, for a problem its label does not place.
			msg += fmt.Sprintf(" (byte %d of %s)", p.Offset, quoteCut(value))
		}
		w := why[p.Kind]
		if p.Kind == usage.Wildcard && p.Label != "" {
			w = labelWildcardWhy
		}
		fs = append(fs, finding{line: line, kind: prefix + p.Kind.String(), msg: msg, why: w})
	}
	return fs
}

// quoteCut quotes s, cut after 64 bytes (and "…" appended) so that a long
// value costs a line of report, not its length each time it is quoted.
func quoteCut(s string) string {
	const max = 64
	if len(s) <= max {
		return strconv.Quote(s)
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return strconv.Quote(s[:i]) + "…"
}

// shadowed returns the rules of g that can never decide: on every path a
// rule matches, another rule of the group wins (a longer one, or an equal
// Allow, or an equal earlier one). It considers rules without an inner '*';
// it never reports a rule that can win, as groups merged with g for some
// crawler only add rules that might beat it.
func shadowed(g parser.Group) []finding {
	only := &parser.Robots{Groups: []parser.Group{{Agents: []parser.Agent{{Value: "lint"}}, Rules: g.Rules}}}
	m := matcher.Compile(only, "lint")
	var fs []finding
	for _, a := range g.Rules {
		lit, anchored := strings.CutSuffix(a.Pattern, "$")
		if lit == "" || lit[0] != '/' || strings.Contains(lit, "*") || strings.ContainsAny(lit, " \t") {
			continue
		}
		// a matches the path lit; on it, the winner is the best rule there is.
		w := m.Match(lit).Rule
		if w.Line == a.Line {
			continue // a wins on lit
		}
		// An anchored a matches lit alone. A plain a also matches every path
		// starting with lit; w matches them all too unless w is anchored (or
		// may be, through Google's index.html rule).
		if !anchored && (strings.HasSuffix(w.Pattern, "$") || w.Allow && strings.Contains(lastSegment(w.Pattern), "index.htm")) {
			continue
		}
		fs = append(fs, neverWins(a, w))
	}
	return fs
}

// neverWins returns the finding of rule a, which never decides because w
// wins wherever a matches.
func neverWins(a, w parser.Rule) finding {
	f := finding{line: a.Line, kind: "never-wins"}
	canon := string(urlpath.AppendPattern(nil, a.Pattern))
	same := canon == string(urlpath.AppendPattern(nil, w.Pattern))
	switch {
	case same && w.Allow == a.Allow && w.Pattern == a.Pattern:
		f.msg = fmt.Sprintf("%s is the same rule as line %d; it never wins", a, w.Line)
		f.why = "a rule written twice decides nothing the first does not: remove one of the two lines"
	case same && w.Allow == a.Allow:
		// Two spellings of one pattern, such as /a%62 and /ab: crawlers
		// compare the canonical forms (RFC 9309 §2.2.2).
		f.msg = fmt.Sprintf("%s is the same rule as line %d (%s; both read %s); it never wins", a, w.Line, w, canon)
		f.why = "crawlers compare patterns percent-encoded, with escapes of letters, digits and -._~ decoded (RFC 9309 §2.2.2): remove one of the two lines"
	case same:
		f.msg = fmt.Sprintf("%s is always beaten by line %d (%s", a, w.Line, w)
		if w.Pattern != a.Pattern {
			f.msg += "; both read " + canon
		}
		f.msg += ")"
		f.why = "of an Allow and a Disallow of equal length, the Allow wins (RFC 9309 §2.2.2)"
	default:
		f.msg = fmt.Sprintf("%s is always beaten by line %d (%s)", a, w.Line, w)
		f.why = "a longer rule matches every path this one matches"
	}
	return f
}

func lastSegment(p string) string {
	return p[strings.LastIndexByte(p, '/')+1:]
}

// isHTML reports whether body looks like an HTML page: a doctype, html, head
// or body tag near its start, outside a robots.txt comment.
func isHTML(body []byte) bool {
	head := bytes.ToLower(body[:min(len(body), 1024)])
	found := false
	eachBodyLine(head, func(_ int, line []byte) {
		if i := bytes.IndexByte(line, '#'); i >= 0 {
			line = line[:i] // "# <html> is not allowed here" is a comment
		}
		for _, tag := range []string{"<!doctype html", "<html", "<head", "<body"} {
			found = found || bytes.Contains(line, []byte(tag))
		}
	})
	return found
}

// firstUnread returns the number of the first line crawlers do not read of
// a file cut to body: the line after body's last complete line.
func firstUnread(body []byte) int {
	n := parser.Parse(body).Lines // counts the empty line after a final line ending
	if len(body) > 0 && body[len(body)-1] != '\n' && body[len(body)-1] != '\r' {
		n++ // body ends right at the cap, and a line ending follows
	}
	return n
}
