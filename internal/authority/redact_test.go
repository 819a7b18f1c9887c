package authority

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// By design: errors never carry a URL's password.
func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://user:secret@example.com/x", "https://user:xxxxx@example.com/x"},
		{"https://user@example.com/x", "https://user@example.com/x"},
		{"https://:secret@example.com/", "https://:xxxxx@example.com/"},
		{"https://u:a:b@c@example.com/?q=1#f", "https://u:xxxxx@example.com/?q=1#f"},
		{"//user:secret@example.com/x", "//user:xxxxx@example.com/x"},
		{"https://example.com/x?next=//u:p@h", "https://example.com/x?next=//u:p@h"},
		{"https://example.com/u:p@h", "https://example.com/u:p@h"},
		{"http:/u:p@h/", "http:/u:p@h/"},
		// Invalid URLs too: they end up in errors.
		{"http://user:se cret\\@evil.test/", "http://user:xxxxx@evil.test/"},
		{"ftp://user:secret@host/", "ftp://user:xxxxx@host/"},
		{"", ""},
		{"http:", "http:"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Redact(tt.in), tt.in)
	}
}

func TestErrorRedacts(t *testing.T) {
	_, err := Parse("http://user:hunter2@exa mple.com/")
	var e *Error
	assert.ErrorAs(t, err, &e)
	assert.NotContains(t, err.Error(), "hunter2")
	assert.Equal(t, "http://user:xxxxx@exa mple.com/", e.URL)
}
