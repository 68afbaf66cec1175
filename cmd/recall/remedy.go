package main

import "github.com/recall-dev/recall/internal/problem"

// sayCLI is err's text with its remedy worded for the shell.
func sayCLI(err error) string { return problem.Say(err, problem.ShellWording) }
