package indexer

import (
	"time"

	"golang.org/x/sys/unix"

	"github.com/recall-dev/recall/indexer/freshstate"
	"github.com/recall-dev/recall/transcript/agents"
)

// The other agents' places have no signals like Claude Code's
// history.jsonl for each session; each agent names instead a few paths
// (agents.Agent.WatchPaths: its sessions folder and newest date folders,
// its database and write-ahead log, a history file) whose mtime moves
// whenever any of its session files is added or grows. The quick check
// stats those alone, so its cost does not grow with the number of
// session files: unchanged, the agent is not looked at; changed, every
// session file of that agent is listed and stat'ed this run (its files
// gone from disk are marked gone by the next full sweep; their rows are
// kept either way).

// watchKey is the freshness state's key of an agent's watched path: the
// Dirs map holds folder mtimes by path, and the prefix keeps these apart
// from Claude Code's folders, which the quick check lists.
func watchKey(src agents.Source, path string) string { return "@" + src.Agent + ":" + path }

// watchMtime is path's mtime, -1 when it does not exist (its appearing
// is a change too). A stat(2) of its own: os.Stat's FileInfo, made for
// each of the few hundred paths a no-change check stats, was a third
// of the check's time spent on them.
func watchMtime(path string) int64 {
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil {
		return -1
	}
	return st.Mtim.Nano()
}

// noteAgents records the watched paths of every agent source before a
// sweep lists their files.
func (s *sweepStart) noteAgents(srcs []agents.Source, racy func(int64) int64) {
	for _, src := range srcs {
		a, ok := agents.Lookup(src.Agent)
		if !ok {
			continue
		}
		for _, p := range a.WatchPaths(src.Path) {
			mt := watchMtime(p)
			if mt > 0 {
				mt = racy(mt)
			}
			s.state.Dirs[watchKey(src, p)] = freshstate.Dir{MtimeNs: mt}
		}
	}
}

// checkAgents stats each agent source's watched paths and lists the
// session files of those that changed.
func (q *quick) checkAgents() {
	for _, src := range q.opts.Agents {
		a, ok := agents.Lookup(src.Agent)
		if !ok {
			continue
		}
		changed := false
		for _, p := range a.WatchPaths(src.Path) {
			key := watchKey(src, p)
			mt := watchMtime(p)
			prev, seen := q.prev.Dirs[key]
			if !seen || prev.MtimeNs != mt || prev.MtimeNs == 0 {
				changed = true
			}
			if mt > 0 && q.now.Sub(time.Unix(0, mt)) < racyWindow {
				mt = 0 // too close to now to trust: look again next run
			}
			q.next.Dirs[key] = freshstate.Dir{MtimeNs: mt}
		}
		if !changed {
			continue
		}
		for _, t := range a.Discover(src.Path, q.opts.Warn) {
			q.add(t, false)
		}
		q.needManifest = true
	}
}
