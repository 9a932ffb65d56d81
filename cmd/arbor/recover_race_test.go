//go:build race

package main

// recoverRace makes the recovery tests small under the race detector with
// -short: they then check the output and the concurrency, not the
// statistics (the full tests run without the race detector in CI).
const recoverRace = true
