package lsp

import (
	"encoding/json"

	"go.lsp.dev/uri"
)

// This file extends the test client with what the review tests read: the diagnostics the
// server publishes (c.diagnostics(u) is the latest list for u, c.publishCount(u) how many lists
// arrived), and requests for code actions, lenses and symbols.

// wireDiagnostic is a Diagnostic as the client decodes it.
type wireDiagnostic struct {
	Range              wireRange `json:"range"`
	Severity           int       `json:"severity"`
	Code               string    `json:"code"`
	Source             string    `json:"source"`
	Message            string    `json:"message"`
	RelatedInformation []struct {
		Location struct {
			URI   uri.URI   `json:"uri"`
			Range wireRange `json:"range"`
		} `json:"location"`
		Message string `json:"message"`
	} `json:"relatedInformation"`
	Data json.RawMessage `json:"data"`
}

// wirePos is a Position as the client decodes it.
type wirePos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// wireRange is a Range as the client decodes it.
type wireRange struct {
	Start wirePos `json:"start"`
	End   wirePos `json:"end"`
}

// rng builds a wireRange.
func rng(sl, sc, el, ec int) wireRange {
	return wireRange{Start: wirePos{Line: sl, Character: sc}, End: wirePos{Line: el, Character: ec}}
}

// diagnostics returns the latest diagnostics published for u.
func (c *testClient) diagnostics(u uri.URI) []wireDiagnostic {
	all := c.cl.Diagnostics(u)
	if len(all) == 0 {
		return nil
	}
	var p struct {
		Diagnostics []wireDiagnostic `json:"diagnostics"`
	}
	if err := json.Unmarshal(all[len(all)-1], &p); err != nil {
		c.t.Errorf("undecodable publishDiagnostics: %v", err)
	}
	return p.Diagnostics
}

// publishCount returns how many publishDiagnostics arrived for u.
func (c *testClient) publishCount(u uri.URI) int {
	return len(c.cl.Diagnostics(u))
}
