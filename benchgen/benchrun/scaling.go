package benchrun

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/recall-dev/recall/internal/errpath"
)

// The no-change check of a mixed corpus stats each agent's few watched
// paths (transcript/agents WatchPaths), never each session file: its cost
// must not grow with the number of other agents' files. The scaling
// measurement shows it: the same Claude Code transcripts with the other
// agents' sessions at 1× (the corpus) and at agentScale× (a second set of
// agents' folders, the same projects with agentScale times the sessions),
// each in an index of its own, timed alike, and, when strace is there,
// the stat-family system calls of one run of each counted.

// agentScale is how many times the other agents' sessions the second
// set holds.
const agentScale = 4

// straceFilter selects every stat-family call: Go's os.Stat is
// newfstatat on linux/amd64 (and statx elsewhere), which strace's %stat
// class does not include; %%stat does (stat, lstat, fstat, newfstatat,
// statx and their 64-bit forms).
const straceFilter = "trace=%%stat"

type scalingResult struct {
	scale      int
	variantDir string // the agents' folders at scale×
	cmd1, cmdN command
	// the other agents' parts of each, their files and bytes
	agents1, agentsN []agentInfo
	files1, filesN   int
	bytes1, bytesN   int64
	// the no-change index of each, runs interleaved
	noChange1, noChangeN sample
	// stat-family system calls of one no-change run, by call and in
	// all; nil when they were not counted
	stats1, statsN map[string]int64
	straceCmd      string // the strace invocation, for the report
	straceNote     string // why the calls were not counted
}

// measureAgentScaling runs after every other measurement of a mixed
// corpus: it dates the tree back again and sweeps the index, which the
// measurements before it must not see.
func measureAgentScaling(ctx context.Context, cfg Config, rn runner, res *sizeResult, recall string, size int64, indexDir string) (scalingResult, error) {
	sc := scalingResult{scale: agentScale, variantDir: fmt.Sprintf("%s-agents%dx", res.corpusDir, agentScale)}
	agents, err := ensureAgentCorpus(filepath.Join(rn.dir, sc.variantDir), size, cfg.Seed, agentScale, cfg.Log)
	if err != nil {
		return sc, err
	}
	sc.agents1, sc.agentsN = res.corpus.Agents, agents
	for _, a := range res.corpus.Agents {
		sc.files1 += a.Files
		sc.bytes1 += a.Bytes
	}
	for _, a := range agents {
		sc.filesN += a.Files
		sc.bytesN += a.Bytes
	}
	indexN := fmt.Sprintf("%s-agents%dx", indexDir, agentScale)
	sourcesN := append([]string{"--source", filepath.Join(res.corpusDir, "projects")}, agentSourceArgs(sc.variantDir)...)
	sc.cmd1 = res.indexCmd
	sc.cmdN = tool(append(append([]string{recall, "index"}, sourcesN...), "--index-dir", indexN)...)
	// Both trees quiet, both indexes swept up to date (the second one is
	// built here, untimed).
	for _, d := range []string{res.corpusDir, sc.variantDir} {
		if err := ageTree(filepath.Join(rn.dir, d), 24*time.Hour); err != nil {
			return sc, err
		}
	}
	fmt.Fprintf(cfg.Log, "recall-bench: %s no-change index with the other agents' sessions ×1 and ×%d\n", res.label, agentScale)
	for _, s := range []struct {
		sources []string
		index   string
	}{{res.sources, indexDir}, {sourcesN, indexN}} {
		if _, err := rn.run(ctx, tool(append(append([]string{recall, "index", "--sweep"}, s.sources...), "--index-dir", s.index)...)); err != nil {
			return sc, err
		}
	}
	timed, err := rn.interleaved(ctx, freshnessRepeat(cfg.Repeat), sc.cmd1, sc.cmdN)
	if err != nil {
		return sc, err
	}
	sc.noChange1, sc.noChangeN = timed[0], timed[1]
	countStats(ctx, rn, &sc, res.label)
	return sc, nil
}

// countStats counts the stat-family calls of one no-change run of each
// index under strace -f -c; without strace, or when it cannot trace
// here, it says why instead.
func countStats(ctx context.Context, rn runner, sc *scalingResult, label string) {
	if _, err := exec.LookPath("strace"); err != nil {
		sc.straceNote = "strace is not installed (apt-get install strace), so the system calls were not counted"
		return
	}
	sc.straceCmd = "strace -f -c -e " + straceFilter + " -o FILE"
	for i, c := range []command{sc.cmd1, sc.cmdN} {
		out := filepath.Join(rn.dir, fmt.Sprintf("strace-%s-%d.txt", label, i))
		traced := tool(append([]string{"strace", "-f", "-c", "-e", straceFilter, "-o", out}, c.argv...)...)
		if _, err := rn.run(ctx, traced); err != nil {
			sc.straceNote = fmt.Sprintf("strace could not trace here (%v), so the system calls were not counted", headLine(err.Error()))
			sc.stats1, sc.statsN = nil, nil
			return
		}
		data, err := os.ReadFile(out)
		if err != nil {
			sc.straceNote = errpath.Wrap("read", out, err).Error()
			sc.stats1, sc.statsN = nil, nil
			return
		}
		counts := parseStraceCounts(string(data))
		if i == 0 {
			sc.stats1 = counts
		} else {
			sc.statsN = counts
		}
	}
}

// parseStraceCounts reads the table strace -c writes: calls per system
// call, and the total under "total".
func parseStraceCounts(table string) map[string]int64 {
	counts := map[string]int64{"total": 0}
	for _, line := range strings.Split(table, "\n") {
		f := strings.Fields(line)
		// % time, seconds, usecs/call, calls, [errors,] syscall
		if len(f) < 5 || strings.HasPrefix(f[0], "%") || strings.HasPrefix(f[0], "-") {
			continue
		}
		if _, err := strconv.ParseFloat(f[0], 64); err != nil {
			continue
		}
		calls, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil {
			continue
		}
		counts[f[len(f)-1]] = calls
	}
	return counts
}

func headLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// agentProjects lists the projects each agent has sessions in: "12, 8,
// 5, 13" in the order of the agents.
func agentProjects(agents []agentInfo) string {
	parts := make([]string, len(agents))
	for i, a := range agents {
		parts[i] = strconv.Itoa(a.Projects)
	}
	return strings.Join(parts, ", ")
}

func agentNames(agents []agentInfo) string {
	parts := make([]string, len(agents))
	for i, a := range agents {
		parts[i] = a.Agent
	}
	return strings.Join(parts, ", ")
}
