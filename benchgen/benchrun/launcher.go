package benchrun

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Why a launcher: on Linux a child's ru_maxrss starts at the high-water
// RSS of the process it was started from (exec records the old address
// space's peak, and Go starts children with vfork semantics). Measured
// directly, every command would report at least the harness's own peak,
// which is large once it has generated a corpus. So each command runs
// under a small, freshly started launcher process (`recall-bench
// measure -- CMD...`) which times it, waits for it and reports its
// rusage on file descriptor 3. The launcher's own small RSS is the floor
// of every measurement; the report shows it.

// reportFD is where the launcher writes its measurement, leaving the
// command's stdout and stderr untouched.
const reportFD = 3

// RunMeasured runs argv with inherited stdin, stdout and stderr, writes
// "<wall ns> <max RSS bytes>" to fd 3 and returns the command's exit
// status (128+signal if it was killed, 127 if it could not start).
func RunMeasured(argv []string) int {
	if len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "measure: no command")
		return 127
	}
	report := reportPipe(reportFD)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		fmt.Fprintln(os.Stderr, "measure:", err)
		return 127
	}
	if report != nil {
		fmt.Fprintf(report, "%d %d\n", wall.Nanoseconds(), maxRSSBytes(cmd.ProcessState))
		report.Close()
	}
	return exitStatus(cmd.ProcessState)
}

// parseMeasurement reads the launcher's report line.
func parseMeasurement(line string) (time.Duration, int64, error) {
	fields := strings.Fields(line)
	if len(fields) != 2 {
		return 0, 0, fmt.Errorf("launcher report %q: want two numbers", line)
	}
	wall, err := strconv.ParseInt(fields[0], 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("launcher report %q: %w", line, err)
	}
	rss, err := strconv.ParseInt(fields[1], 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("launcher report %q: %w", line, err)
	}
	return time.Duration(wall), rss, nil
}
