package exportstream_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/internal/exportstream"
)

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := exportstream.NewWriter(&buf)
	require.Error(t, w.Write(nil), "an empty frame would read as the end marker")
	require.NoError(t, w.Write([]byte("one")))
	require.NoError(t, w.Write(bytes.Repeat([]byte{7}, 200<<10)))
	require.NoError(t, w.Close())
	var got [][]byte
	require.NoError(t, exportstream.Read(bytes.NewReader(buf.Bytes()), 1<<20, func(b []byte) error {
		got = append(got, b)
		return nil
	}))
	require.Len(t, got, 2)
	assert.Equal(t, "one", string(got[0]))
	assert.Len(t, got[1], 200<<10)

	var fe *exportstream.FormatError
	err := exportstream.Read(bytes.NewReader(buf.Bytes()), 100, func([]byte) error { return nil })
	require.ErrorAs(t, err, &fe, "a frame over the limit")
	assert.Contains(t, fe.Error(), "over 100")

	stop := errors.New("stop")
	assert.Same(t, stop, exportstream.Read(bytes.NewReader(buf.Bytes()), 1<<20, func([]byte) error { return stop }))
}

// A writer's error is the Writer's, and sticks.
func TestWriterErrorSticks(t *testing.T) {
	boom := errors.New("disk on fire")
	w := exportstream.NewWriter(errWriter{boom})
	w.Write(bytes.Repeat([]byte{1}, 8<<10)) // past bufio's buffer: the write fails
	assert.ErrorIs(t, w.Write([]byte("x")), boom)
	assert.ErrorIs(t, w.Close(), boom)
}

type errWriter struct{ err error }

func (w errWriter) Write([]byte) (int, error) { return 0, w.err }
