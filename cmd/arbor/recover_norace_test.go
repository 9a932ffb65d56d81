//go:build !race

package main

const recoverRace = false
