// Command recall-opencode reads an OpenCode database for recall: recall
// runs it for each read of a database that changed and takes the rows it
// writes on stdout (a wire of recall's own, not meant for people). It is
// a binary of its own so that recall does not link SQLite
// (docs/performance.md, "OpenCode's database read by a helper").
//
//	recall-opencode --wire 1 --since CURSOR --now MS -- PATH
//
// Exit status: 0 when the read is whole, 1 when it failed (the reason on
// stderr), 2 for arguments it does not take.
package main

import (
	"os"

	"github.com/recall-dev/recall/internal/cpuprofile"
	"github.com/recall-dev/recall/transcript/opencode"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver ("sqlite")
)

func main() {
	stop := cpuprofile.Start("recall-opencode", os.Stderr) // make pgo's profile, when asked
	code := opencode.HelperMain(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
