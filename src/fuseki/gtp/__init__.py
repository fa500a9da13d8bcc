"""Talking GTP (the Go Text Protocol) to engines: a robust client and engine checks."""
