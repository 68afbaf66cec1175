package main

import "github.com/recall-dev/recall/internal/problem"

// cliWording says a problem's remedy to someone at a shell: the command
// to run and what it does.
func cliWording(p problem.Problem) string {
	switch p.Remedy {
	case problem.Index:
		return "; `recall index` " + p.Mends
	case problem.Repair:
		return "; `recall index --repair` " + p.Mends
	case problem.RestoreTombstone:
		return " (restore it from a backup, or remove it and run `recall forget` again)"
	}
	return ""
}

// sayCLI is err's text with its remedy worded for the shell.
func sayCLI(err error) string { return problem.Say(err, cliWording) }
