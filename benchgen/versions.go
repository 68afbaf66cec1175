package benchgen

// cliVersion is a Claude Code release and the format traits that changed
// around it (see the format doc, §2-§5). Sessions get the version that
// was current at their start, so older sessions look older.
type cliVersion struct {
	name string
	// oldAgentLayout writes subagents as <project>/agent-<id>.jsonl (2.0.x).
	oldAgentLayout bool
	// progressLines writes progress records (about 2.1.2 to 2.1.9x).
	progressLines bool
	// emptyThinking stores thinking blocks with only a signature (2.1.89+).
	emptyThinking bool
	// envelopeV2 adds entrypoint, slug and promptId to records.
	envelopeV2 bool
	// agentTool is the name of the subagent tool: Task, later Agent.
	agentTool string
	// newCaveat uses the 2.1.330 wording of the local-command caveat.
	newCaveat bool
	// forkedFrom marks lines copied into a fork (seen in 2.1.123).
	forkedFrom bool
	// richAgentMeta adds toolUseId, spawnDepth, … to subagent meta.json.
	richAgentMeta bool
	// summaryFirst starts files with a summary record (2.0.x).
	summaryFirst bool
	// share is the part of the corpus timeline this release covers.
	share float64
}

// cliVersions is ordered oldest first. The 2.0.x share is small: only a
// few old-layout subagent files survive in a real corpus.
var cliVersions = []cliVersion{
	{name: "2.0.76", share: 0.04, oldAgentLayout: true, agentTool: "Task", summaryFirst: true},
	{name: "2.1.14", share: 0.12, progressLines: true, agentTool: "Task"},
	{name: "2.1.69", share: 0.14, progressLines: true, agentTool: "Task"},
	{name: "2.1.100", share: 0.16, emptyThinking: true, envelopeV2: true, agentTool: "Agent"},
	{name: "2.1.123", share: 0.16, emptyThinking: true, envelopeV2: true, agentTool: "Agent", forkedFrom: true},
	{name: "2.1.202", share: 0.18, emptyThinking: true, envelopeV2: true, agentTool: "Agent"},
	{name: "2.1.330", share: 0.20, emptyThinking: true, envelopeV2: true, agentTool: "Agent", newCaveat: true, richAgentMeta: true},
}

// versionAt returns the release current at fraction f (0 = oldest, 1 =
// newest) of the corpus timeline.
func versionAt(f float64) cliVersion {
	for _, v := range cliVersions {
		if f < v.share {
			return v
		}
		f -= v.share
	}
	return cliVersions[len(cliVersions)-1]
}
