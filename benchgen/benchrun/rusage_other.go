//go:build !unix

package benchrun

import "os"

// maxRSSBytes is unknown off Unix; the report then shows no RSS.
func maxRSSBytes(*os.ProcessState) int64 { return 0 }

func exitStatus(ps *os.ProcessState) int { return ps.ExitCode() }

// reportPipe is not supported off Unix; the harness then gets no report.
func reportPipe(int) *os.File { return nil }
