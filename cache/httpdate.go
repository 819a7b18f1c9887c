package cache

import (
	"net/http"
	"time"
)

// A kept header whose value is an HTTP date as servers send it (the
// IMF-fixdate of RFC 9110 §5.6.7, which http.TimeFormat writes) is packed
// as its time: its tag with dateTag set, then its seconds since 1970 as a
// varint. Twenty-nine bytes become six, for the Date and Last-Modified
// most responses carry. A value that formatting its time would not give
// back exactly is packed as written.
const dateTag = 0x80

var (
	weekdays = [...]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
	months   = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
)

// fixdate returns the seconds since 1970 of v, an IMF-fixdate that
// appendFixdate writes back exactly; false for any other value.
func fixdate(v string) (int64, bool) {
	if len(v) != len(http.TimeFormat) || v[3] != ',' || v[4] != ' ' || v[7] != ' ' || v[11] != ' ' ||
		v[16] != ' ' || v[19] != ':' || v[22] != ':' || v[25:] != " GMT" {
		return 0, false
	}
	day, d := digits(v[5:7])
	year, y := digits(v[12:16])
	hour, h := digits(v[17:19])
	minute, m := digits(v[20:22])
	sec, s := digits(v[23:25])
	if !d || !y || !h || !m || !s || hour > 23 || minute > 59 || sec > 59 {
		return 0, false
	}
	month := 0
	for month < len(months) && months[month] != v[8:11] {
		month++
	}
	if month == len(months) {
		return 0, false
	}
	t := time.Date(year, time.Month(month+1), day, hour, minute, sec, 0, time.UTC)
	if t.Day() != day || weekdays[t.Weekday()] != v[:3] {
		return 0, false // a day the month does not have, or the wrong weekday
	}
	return t.Unix(), true
}

// digits returns the decimal number s spells, all of it digits.
func digits(s string) (int, bool) {
	n := 0
	for i := range len(s) {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// appendFixdate appends the IMF-fixdate of sec, seconds since 1970.
func appendFixdate(b []byte, sec int64) []byte {
	return time.Unix(sec, 0).UTC().AppendFormat(b, http.TimeFormat)
}
