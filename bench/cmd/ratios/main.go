// Command ratios reads `go test -bench` output of package bench on standard
// input and prints a Markdown table: for each benchmark, our time per op and
// each peer's time as a multiple of ours. Several runs of one benchmark (from
// -count) are reduced to their median.
//
//	go test -run '^$' -bench . -count 5 | go run ./cmd/ratios
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

const ours = "robots"

var peers = []string{"temoto", "grobotstxt"}

// line matches "BenchmarkX/case/lib=name-2   N   123.4 ns/op ...".
var line = regexp.MustCompile(`^Benchmark(\S+)/lib=([a-z]+)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op`)

func main() {
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "ratios:", err)
		os.Exit(1)
	}
}

func run(in io.Reader, out io.Writer) error {
	times := map[string]map[string][]float64{} // benchmark -> library -> ns/op
	var order []string
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		ns, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			return err
		}
		if times[m[1]] == nil {
			times[m[1]] = map[string][]float64{}
			order = append(order, m[1])
		}
		times[m[1]][m[2]] = append(times[m[1]][m[2]], ns)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(order) == 0 {
		return fmt.Errorf("no benchmark lines of the form Benchmark.../lib=NAME on input")
	}
	fmt.Fprintf(out, "| benchmark | %s | %s |\n", ours, strings.Join(peers, " | "))
	fmt.Fprintf(out, "| --- | ---: |%s\n", strings.Repeat(" ---: |", len(peers)))
	for _, b := range order {
		base, ok := median(times[b][ours])
		if !ok {
			continue
		}
		row := []string{b, duration(base)}
		for _, p := range peers {
			if t, ok := median(times[b][p]); ok {
				row = append(row, fmt.Sprintf("%s (%s)", duration(t), ratio(t/base)))
			} else {
				row = append(row, "—")
			}
		}
		fmt.Fprintf(out, "| %s |\n", strings.Join(row, " | "))
	}
	return nil
}

// ratio formats r, a peer's time over ours, with the digits that tell a
// ratio near parity apart from parity: 0.97× is not 1.0×.
func ratio(r float64) string {
	if r < 2 {
		return fmt.Sprintf("%.2f×", r)
	}
	return fmt.Sprintf("%.1f×", r)
}

func median(xs []float64) (float64, bool) {
	if len(xs) == 0 {
		return 0, false
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2], true
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2, true
}

// duration formats nanoseconds with a unit that keeps 3 significant digits.
func duration(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.3g ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.3g µs", ns/1e3)
	default:
		return fmt.Sprintf("%.3g ns", ns)
	}
}
