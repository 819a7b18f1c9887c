package parser

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/internal/sharedtest"
)

type otherCase struct {
	ID        string          `json:"id"`
	Robots    *string         `json:"robots"`
	RobotsB64 *string         `json:"robots_b64"`
	Agent     string          `json:"agent"`
	Want      json.RawMessage `json:"want"`
}

func (c otherCase) body(t *testing.T) []byte {
	if c.RobotsB64 != nil {
		b, err := base64.StdEncoding.DecodeString(*c.RobotsB64)
		require.NoError(t, err)
		return b
	}
	return []byte(*c.Robots)
}

func loadOtherCases(t *testing.T) map[string][]otherCase {
	data, err := os.ReadFile(filepath.Join(sharedtest.Dir(t, "conformance"), "other_cases.json"))
	require.NoError(t, err)
	var all map[string][]otherCase
	require.NoError(t, json.Unmarshal(data, &all))
	return all
}

// googleLine is what Google's RobotsParsingReporter records for one line.
type googleLine struct {
	Line                    int    `json:"line"`
	Tag                     string `json:"tag"`
	IsTypo                  bool   `json:"is_typo"`
	IsEmpty                 bool   `json:"is_empty"`
	HasComment              bool   `json:"has_comment"`
	IsComment               bool   `json:"is_comment"`
	HasDirective            bool   `json:"has_directive"`
	IsAcceptableTypo        bool   `json:"is_acceptable_typo"`
	IsLineTooLong           bool   `json:"is_line_too_long"`
	IsMissingColonSeparator bool   `json:"is_missing_colon_separator"`
}

// report describes a scanned line as Google's reporter would.
func report(l scanned) googleLine {
	tags := map[key]string{
		keyUserAgent: "user-agent", keyAllow: "allow", keyDisallow: "disallow", keySitemap: "sitemap",
		keyCrawlDelay: "unused", keyContentUsage: "unused", keyUnused: "unused",
	}
	tag, ok := tags[l.key]
	if !ok {
		tag = "unknown"
	}
	// Google flags only its listed misspellings, not prefix extensions.
	typo := l.has(flagTypo) && !hasPrefixFold(l.rawKey, canonicalKeys[l.key])
	return googleLine{
		Line: l.num, Tag: tag, IsTypo: typo, IsAcceptableTypo: typo,
		IsEmpty: l.empty && !l.comment, HasComment: l.comment, IsComment: l.empty && l.comment,
		HasDirective: l.key != keyNone, IsLineTooLong: l.has(flagTooLong), IsMissingColonSeparator: l.has(flagMissingColon),
	}
}

// scanned is a line with its key and value.
type scanned struct {
	line
	rawKey, value []byte
	ascii         bool
}

func scanAll(body []byte) []scanned {
	sc := newScanner(body)
	var out []scanned
	var l line
	for sc.next(&l) {
		out = append(out, scanned{l, body[l.keyStart:l.keyEnd], body[l.valueStart:l.valueEnd], sc.ascii(&l)})
	}
	return out
}

// split scans text, which holds no line ending, as line num.
func split(num int, text []byte) scanned {
	sc := newScanner(text)
	sc.num = num - 1
	var l line
	sc.next(&l)
	return scanned{l, text[l.keyStart:l.keyEnd], text[l.valueStart:l.valueEnd], sc.ascii(&l)}
}

func isStandard(k key) bool {
	return k == keyUserAgent || k == keyAllow || k == keyDisallow || k == keySitemap
}

// Google's ID_LinesNumbersAreCountedCorrectly and ID_UTF8ByteOrderMarkIsSkipped.
func TestGoogleParseStats(t *testing.T) {
	for _, c := range loadOtherCases(t)["parse_stats"] {
		t.Run(c.ID, func(t *testing.T) {
			var want map[string]int
			require.NoError(t, json.Unmarshal(c.Want, &want))
			valid, unknown, last := 0, 0, 0
			for _, l := range scanAll(c.body(t)) {
				if l.key == keyNone {
					continue
				}
				if isStandard(l.key) {
					valid++
				} else {
					unknown++
				}
				last = l.num
			}
			got := map[string]int{"valid_directives": valid, "unknown_directives": unknown, "last_line_seen": last}
			for k, v := range want {
				assert.Equal(t, v, got[k], k)
			}
		})
	}
}

// Google's reporting_robots_test.cc.
func TestGoogleLineReports(t *testing.T) {
	for _, c := range loadOtherCases(t)["line_reports"] {
		t.Run(c.ID, func(t *testing.T) {
			var want struct {
				ValidDirectives int          `json:"valid_directives"`
				LastLineSeen    int          `json:"last_line_seen"`
				LinesReported   *int         `json:"lines_reported"`
				Lines           []googleLine `json:"lines"`
			}
			require.NoError(t, json.Unmarshal(c.Want, &want))
			lines := scanAll(c.body(t))
			valid := 0
			var got []googleLine
			for _, l := range lines {
				if isStandard(l.key) {
					valid++
				}
				got = append(got, report(l))
			}
			assert.Equal(t, want.ValidDirectives, valid)
			assert.Equal(t, want.LastLineSeen, len(lines))
			assert.Equal(t, want.LastLineSeen, Parse(c.body(t)).Lines)
			if want.LinesReported != nil {
				assert.Equal(t, *want.LinesReported, len(lines))
			}
			// The vectors list the lines their test checks, by number.
			for _, w := range want.Lines {
				require.Less(t, w.Line-1, len(got))
				assert.Equal(t, w, got[w.Line-1])
			}
		})
	}
}

func TestGoogleSitemaps(t *testing.T) {
	for _, c := range loadOtherCases(t)["sitemaps"] {
		var want []string
		require.NoError(t, json.Unmarshal(c.Want, &want))
		assert.Equal(t, want, Parse(c.body(t)).Sitemaps, c.ID)
	}
}

func TestGoogleValidUserAgent(t *testing.T) {
	for _, c := range loadOtherCases(t)["valid_user_agent"] {
		var want bool
		require.NoError(t, json.Unmarshal(c.Want, &want))
		assert.Equal(t, want, IsValidToken(c.Agent), "%s: %q", c.ID, c.Agent)
	}
}
