package main

import "github.com/recall-dev/recall/benchgen/benchrun"

// measureCmd is the launcher `recall-bench run` starts every timed
// command under (see benchrun/launcher.go); not meant for people.
type measureCmd struct {
	Argv []string `arg:"" passthrough:"" help:"Command and arguments to run and measure."`
}

func (c *measureCmd) Run() error {
	argv := c.Argv
	if len(argv) > 0 && argv[0] == "--" { // kong passes the separator on
		argv = argv[1:]
	}
	if code := benchrun.RunMeasured(argv); code != 0 {
		return exitStatus(code)
	}
	return nil
}

// exitStatus passes a child's exit status through without a message.
type exitStatus int

func (e exitStatus) Error() string { return "" }
func (e exitStatus) ExitCode() int { return int(e) }
