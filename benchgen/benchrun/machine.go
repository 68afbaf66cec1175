package benchrun

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// machine describes where a benchmark ran, for the report.
type machine struct {
	CPUs      int
	CPUModel  string
	Memory    string
	Kernel    string
	GoVersion string
	Recall    string
	Rg        string
	Zstd      string
	Date      time.Time
}

func describeMachine(ctx context.Context, recall string, now time.Time) machine {
	return machine{
		CPUs:      runtime.NumCPU(),
		CPUModel:  cpuModel(readFileOr("/proc/cpuinfo", "")),
		Memory:    memTotal(readFileOr("/proc/meminfo", "")),
		Kernel:    runtime.GOOS + " " + strings.TrimSpace(readFileOr("/proc/sys/kernel/osrelease", "")),
		GoVersion: goVersion(ctx),
		Recall:    firstLine(ctx, recall, "--version"),
		Rg:        firstLine(ctx, "rg", "--version"),
		Zstd:      firstLine(ctx, "zstd", "--version"),
		Date:      now.UTC(),
	}
}

func readFileOr(path, fallback string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fallback
	}
	return string(data)
}

// cpuModel takes the first "model name" of /proc/cpuinfo.
func cpuModel(cpuinfo string) string {
	sc := bufio.NewScanner(strings.NewReader(cpuinfo))
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(key) == "model name" {
			return strings.TrimSpace(value)
		}
	}
	return "unknown"
}

// memTotal turns /proc/meminfo's MemTotal (kB) into GB.
func memTotal(meminfo string) string {
	sc := bufio.NewScanner(strings.NewReader(meminfo))
	for sc.Scan() {
		var kb int64
		if _, err := fmt.Sscanf(sc.Text(), "MemTotal: %d kB", &kb); err == nil {
			return fmt.Sprintf("%.1f GB", float64(kb)/(1<<20))
		}
	}
	return "unknown"
}

// goVersion prefers the go command (the toolchain that builds recall)
// and falls back to the one this binary was built with.
func goVersion(ctx context.Context) string {
	if v := firstLine(ctx, "go", "version"); v != "unknown" {
		return v
	}
	return runtime.Version()
}

func firstLine(ctx context.Context, name string, args ...string) string {
	out, err := exec.CommandContext(ctx, name, args...).Output()
	if err != nil {
		return "unknown"
	}
	line, _, _ := bytes.Cut(bytes.TrimSpace(out), []byte("\n"))
	return string(line)
}
