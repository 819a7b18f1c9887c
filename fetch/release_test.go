package fetch_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/fetch"
)

// memSite answers every request with body (the path's query picks a body
// by index), gzipped when gz is set, and with its length announced unless
// chunked is set.
type memSite struct {
	bodies      [][]byte
	gz, chunked bool
}

func (s *memSite) RoundTrip(req *http.Request) (*http.Response, error) {
	i, _ := strconv.Atoi(req.URL.Hostname()[1:2])
	raw, h := s.bodies[i], http.Header{}
	if s.gz {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(raw)
		zw.Close()
		raw = b.Bytes()
		h.Set("Content-Encoding", "gzip")
	}
	length := int64(len(raw))
	if s.chunked {
		length = -1
	}
	return &http.Response{StatusCode: http.StatusOK, Header: h, ContentLength: length,
		Body: io.NopCloser(bytes.NewReader(raw)), Request: req}, nil
}

// bodyOf returns a robots.txt of n bytes that only fill tells apart.
func bodyOf(n int, fill byte) []byte {
	b := bytes.Repeat([]byte{fill}, n)
	copy(b, "User-agent: *\nDisallow: /x\n#")
	return b
}

// A body released is handed to a later fetch, with that fetch's bytes; one
// not released never is, however many fetches follow. Bodies are lent
// whether their length is announced or not, gzipped or not, from half a
// KiB (most robots.txt files are a few KiB at most).
func TestReleaseLendsTheBodyAgain(t *testing.T) {
	for _, c := range []struct {
		site *memSite
		size int
	}{{&memSite{}, 10_000}, {&memSite{chunked: true}, 10_000}, {&memSite{gz: true}, 10_000}, {&memSite{}, 600}, {&memSite{chunked: true}, 2_000}} {
		site := c.site
		t.Run(fmt.Sprintf("chunked=%v,gzip=%v,size=%d", site.chunked, site.gz, c.size), func(t *testing.T) {
			site.bodies = [][]byte{bodyOf(c.size, 'a'), bodyOf(c.size, 'b'), bodyOf(c.size, 'c')}
			f := newFetcher(t, fetch.Config{HTTPClient: &http.Client{Transport: site}})
			fetchOne := func(i int) *fetch.Result {
				res, err := f.Fetch(context.Background(), "https://h"+strconv.Itoa(i)+".example/robots.txt", fetch.Validators{})
				require.NoError(t, err)
				require.Nil(t, res.Err)
				require.Equal(t, site.bodies[i], res.Body)
				return res
			}
			kept := fetchOne(0) // never released
			keptMem := unsafe.SliceData(kept.Body)
			reused := false
			// A pool may drop what it is given (it does at random under
			// the race detector) or hand it out on another processor:
			// a body is released, and the next fetch made, until that one
			// gets its memory.
			for range 1000 {
				released := fetchOne(1)
				mem := unsafe.SliceData(released.Body)
				released.Release()
				assert.Nil(t, released.Body)
				released.Release() // twice: once
				res := fetchOne(2)
				assert.NotSame(t, keptMem, unsafe.SliceData(res.Body), "a body not released is the caller's")
				reused = unsafe.SliceData(res.Body) == mem
				res.Release()
				if reused {
					break
				}
			}
			assert.True(t, reused, "the memory released holds a later body")
			assert.Equal(t, site.bodies[0], kept.Body)
		})
	}
}

// Release is safe on anything: no Result, a Result without a body or with a
// body too small to be lent, and a copy of a Result released already, whose
// memory goes back once: two later fetches never share it.
func TestReleaseTwice(t *testing.T) {
	var none *fetch.Result
	none.Release()
	(&fetch.Result{}).Release()
	small := &fetch.Result{Body: []byte("User-agent: *\n")}
	small.Release()
	assert.Nil(t, small.Body)

	site := &memSite{bodies: [][]byte{bodyOf(6_000, 'a'), bodyOf(6_000, 'b'), bodyOf(6_000, 'c')}}
	f := newFetcher(t, fetch.Config{HTTPClient: &http.Client{Transport: site}})
	for range 100 {
		res, err := f.Fetch(context.Background(), "https://h0.example/robots.txt", fetch.Validators{})
		require.NoError(t, err)
		dup := *res
		res.Release()
		dup.Release()
		b, err := f.Fetch(context.Background(), "https://h1.example/robots.txt", fetch.Validators{})
		require.NoError(t, err)
		c, err := f.Fetch(context.Background(), "https://h2.example/robots.txt", fetch.Validators{})
		require.NoError(t, err)
		require.NotSame(t, unsafe.SliceData(b.Body), unsafe.SliceData(c.Body))
		assert.Equal(t, site.bodies[1], b.Body)
		assert.Equal(t, site.bodies[2], c.Body)
		b.Release()
		c.Release()
	}
}

// A copy of a Result released late, once its memory holds another fetch's
// body, gives nothing back: that body stays its own.
func TestReleaseLateCopy(t *testing.T) {
	site := &memSite{bodies: [][]byte{bodyOf(6_000, 'a'), bodyOf(6_000, 'b'), bodyOf(6_000, 'c')}}
	f := newFetcher(t, fetch.Config{HTTPClient: &http.Client{Transport: site}})
	fetchOne := func(i int) *fetch.Result {
		res, err := f.Fetch(context.Background(), "https://h"+strconv.Itoa(i)+".example/robots.txt", fetch.Validators{})
		require.NoError(t, err)
		return res
	}
	tried := false
	for range 1000 {
		res := fetchOne(0)
		dup, mem := *res, unsafe.SliceData(res.Body)
		res.Release()
		again := fetchOne(1)
		if unsafe.SliceData(again.Body) != mem {
			again.Release()
			continue // the pool dropped it, or lent it on another processor: again
		}
		tried = true
		dup.Release() // late: the memory is again's now
		for range 20 {
			other := fetchOne(2)
			require.NotSame(t, mem, unsafe.SliceData(other.Body), "lent twice at once")
			other.Release()
		}
		assert.Equal(t, site.bodies[1], again.Body)
		again.Release()
		break
	}
	assert.True(t, tried, "the memory released was never lent again")
}
