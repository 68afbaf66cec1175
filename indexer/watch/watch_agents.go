package watch

import (
	"github.com/recall-dev/recall/transcript/agents"
)

// Other agents' places are watched through the few paths each agent
// names (agents.Agent.WatchPaths: its sessions and newest date folders,
// its database and write-ahead log, a history file), the same the quick
// check stats: an event on one calls for a run, whose quick check then
// lists that agent's files. A session file of theirs written in a folder
// not among those (a Codex day folder made after the watch began) is
// found by the run after the next event or by the backstop rescan.

// watchAgents (re)watches every agent source's watched paths that
// exist, and remembers them for agentEvent.
func (w *Watcher) watchAgents() {
	for _, src := range w.opts.Agents {
		a, ok := agents.Lookup(src.Agent)
		if !ok {
			continue
		}
		for _, p := range a.WatchPaths(src.Path) {
			if err := w.fsw.Add(p); err == nil {
				w.agentPaths[p] = true
			}
		}
	}
}

// agentEvent reports whether an event is on an agent's watched path or
// an entry of a watched folder.
func (w *Watcher) agentEvent(name string) bool {
	if len(w.agentPaths) == 0 {
		return false
	}
	if w.agentPaths[name] {
		return true
	}
	for p := range w.agentPaths {
		if len(name) > len(p) && name[:len(p)] == p && name[len(p)] == '/' {
			return true
		}
	}
	return false
}
