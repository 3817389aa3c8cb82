package main

// runDemo runs the self-contained tour.
func runDemo(e env) int { return fail(e, 1, "demo: not available yet") }
