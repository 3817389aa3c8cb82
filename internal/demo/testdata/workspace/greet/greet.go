// Package greet builds greetings.
package greet

import "fmt"

// Hello returns a greeting for name.
func Hello(name string) string {
	return fmt.Sprintf("Hello, %s!", name)
}

// Shout returns the greeting in capitals.
func Shout(name string) string {
	return fmt.Sprintf("HELLO, %s!", name)
}
