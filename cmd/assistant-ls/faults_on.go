//go:build testfaults

package main

import (
	"os"

	"github.com/assistant-ls/assistant-ls/lsp"
)

// withFaults sets up the faults the process tests ask for through the environment, in a
// binary built with the testfaults tag only: ASSISTANT_LS_STUCK names a method whose handler
// never returns (a line is written to file descriptor 3, when open, as it blocks).
func withFaults(o lsp.Options) lsp.Options {
	if method := os.Getenv("ASSISTANT_LS_STUCK"); method != "" {
		signal := os.NewFile(3, "stuck-signal")
		o.Fault = func(m string) {
			if m == method {
				if signal != nil {
					_, _ = signal.WriteString(m + "\n")
				}
				select {}
			}
		}
	}
	return o
}
