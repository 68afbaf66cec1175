// Package cpuprofile writes a CPU profile of a run when the environment
// names a folder for it (EnvDir). It is how `make pgo` profiles recall's
// own work on a generated corpus for the compiler's profile-guided
// optimization: the default.pgo beside each command (docs/performance.md,
// "Profile-guided optimization").
package cpuprofile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
)

// EnvDir names the folder each process writes its profile to, as
// NAME-PID.pprof; unset, nothing is profiled.
const EnvDir = "RECALL_CPUPROFILE_DIR"

// Start starts profiling the process, named name, when EnvDir is set,
// and returns what stops it and writes the profile. A profile that
// cannot be written is said on stderr; the run goes on.
func Start(name string, stderr io.Writer) (stop func()) {
	dir := os.Getenv(EnvDir)
	if dir == "" {
		return func() {}
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%d.pprof", name, os.Getpid()))
	f, err := os.Create(path)
	if err == nil {
		if err = pprof.StartCPUProfile(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: cpu profile: %v\n", name, err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(stderr, "%s: cpu profile: %v\n", name, err)
		}
	}
}
