package transport

import (
	"context"
	"strings"
	"testing"
)

// fuzzMaxBody is the body limit of the fuzzed stream: small, so that the padding below always
// outlasts a body the garbage declares.
const fuzzMaxBody = 4096

// resyncPadding follows the garbage: whatever state the garbage left the reader in (inside a
// header line, inside a body of at most fuzzMaxBody bytes, or skipping input), the reader is
// resynchronised by the time this padding ends, so the next frame is read as sent.
var resyncPadding = "\r\n\r\n" + strings.Repeat(" ", fuzzMaxBody+64) + "\r\n\r\n"

// FuzzStream feeds arbitrary bytes to ReadFrame, then padding and a valid request: the stream
// must not panic, must return only bodies it can vouch for, and must read the request.
func FuzzStream(f *testing.F) {
	for _, seed := range []string{
		"",
		"Content-Length: 2\r\n\r\n{}",
		"Content-Length: 99999999999\r\n\r\n",
		"content-length:3\n\n[1]",
		"Content-Length: 38\r\r" + request("x"),
		"Content-Length: 5\r\nhello",
		frame(`{"jsonrpc":"2.0","id":"a","method":"m","params":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`),
		frame(`{"id":"x\"}`),
		"\x00\x01\x02Content-Length: 10\r\n\r\n{\"a\":[1,2",
	} {
		f.Add([]byte(seed))
	}
	want := request("after-fuzz")
	f.Fuzz(func(t *testing.T, garbage []byte) {
		conn := &fakeConn{in: strings.NewReader(string(garbage) + resyncPadding + frame(want))}
		s := NewStream(conn, Options{MaxBody: fuzzMaxBody})
		defer func() { _ = s.Close() }()
		for {
			body, _, err := s.ReadFrame(context.Background())
			if err != nil {
				t.Fatalf("the request after the garbage was not read: %v", err)
			}
			if string(body) == want {
				return
			}
		}
	})
}
