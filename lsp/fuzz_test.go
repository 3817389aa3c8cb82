package lsp

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// fuzzMaxMessage is the message limit of the fuzzed server: small, so that the padding below
// always outlasts a body the garbage declares.
const fuzzMaxMessage = 4096

// resyncPadding follows the garbage: whatever state the garbage left the reader in (inside a
// header line, inside a body of at most fuzzMaxMessage bytes, or skipping input), the reader
// is resynchronised by the time this padding ends, so the next frame is read as sent.
var resyncPadding = "\r\n\r\n" + strings.Repeat(" ", fuzzMaxMessage+64) + "\r\n\r\n"

// FuzzServer feeds arbitrary bytes to the server's read side. The server must not panic, and
// must answer a valid request afterwards, unless the garbage itself held an exit
// notification. The seed corpus is in testdata/fuzz/FuzzServer.
func FuzzServer(f *testing.F) {
	for _, seed := range []string{
		"",
		"Content-Length: 2\r\n\r\n{}",
		"Content-Length: 5\r\n\r\nhello",
		"Content-Length: 99999999999\r\n\r\n",
		"Content-Length: -1\r\n\r\n",
		"content-length:3\n\n[1]",
		`Content-Length: 52` + "\r\n\r\n" + `{"jsonrpc":"2.0","id":7,"method":"assistant/parse"}`,
		"Content-Length: 71\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"assistant/parse\",\"params\":{\"stream\":\"\xff\"}}",
		"Content-Type: application/json\r\nContent-Length: 1\r\n\r\n{",
		"\x00\x01\x02Content-Length: 10\r\n\r\n{\"a\":[1,2",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, garbage []byte) {
		c := newTestClient(t, profileVSCode, withServerOptions(Options{MaxMessageBytes: fuzzMaxMessage}))
		c.writeRaw(garbage)
		c.writeRaw([]byte(resyncPadding))
		err := c.request("assistant/parse", map[string]any{"stream": "after-fuzz", "text": "ok"}, nil)
		var rpcErr *jsonrpc2.Error
		switch {
		case err == nil, errors.As(err, &rpcErr):
			// Answered: with a result, or with an error when the garbage held a shutdown.
		case bytes.Contains(garbage, []byte(`"exit"`)):
			if _, ok := c.serveResult(); !ok {
				t.Fatalf("the server neither answered nor exited: %v", err)
			}
		default:
			t.Fatalf("no answer to a valid request after the garbage: %v", err)
		}
	})
}
