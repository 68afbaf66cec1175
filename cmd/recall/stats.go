package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/recall-dev/recall/indexer/watch"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/claude"
	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/indexer"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/render"
	"github.com/recall-dev/recall/store"
	"github.com/recall-dev/recall/store/forget"
	"github.com/recall-dev/recall/transcript"
	"github.com/recall-dev/recall/transcript/agents"
	"github.com/recall-dev/recall/transcript/opencode"
)

type statsCmd struct {
	JSON     bool `help:"Print the statistics as one JSON object."`
	NoVerify bool `name:"no-verify" help:"Skip reading every rows block and derived file to find damage (one pass over the compressed index)."`
	// NoUpdate is taken as sessions and show take it, so that one set of
	// flags serves every reading command: stats never indexes.
	NoUpdate bool `name:"no-update" help:"Accepted as the other commands take it: stats reads the index as it is anyway."`
}

// statsReport is `recall stats`: what the index holds (store.IndexStats,
// whose fields stay at the top level of --json), how fresh it is, how
// recall is wired into Claude Code, and what needs fixing.
type statsReport struct {
	*store.IndexStats
	Freshness store.Freshness `json:"freshness"`
	Sources   []string        `json:"sources"`
	// AgentSources are the other agents' places read (AGENT:PATH), their
	// defaults that exist or those given.
	AgentSources []string `json:"agent_sources"`
	// MissingHelper is an OpenCode source holding a database when there is
	// no recall-opencode to read it ("" when there is, or none is needed).
	MissingHelper string        `json:"missing_opencode_reader,omitempty"`
	Wiring        wiring        `json:"claude_code"`
	Damage        *damageReport `json:"damage"` // nil: not verified (--no-verify)
	Warnings      []warning     `json:"warnings"`
}

// damageReport is what snapshot.Verify found and what `recall index
// --repair` would do about it.
type damageReport struct {
	Blocks  []snapshot.DamagedBlock `json:"damaged_blocks"`
	Derived []string                `json:"damaged_derived"`
	// Reread are the transcripts still on disk whose lost rows a repair
	// reads again; Lost the rows of gone ones, which no repair brings back.
	Reread map[string]int64 `json:"reread"`
	Lost   map[string]int64 `json:"lost"`
}

type wiring struct {
	Settings       string   `json:"settings"`
	Hooks          []string `json:"hooks"` // events that run recall hook
	HooksPath      string   `json:"hooks_recall,omitempty"`
	Skill          bool     `json:"skill"`
	WatcherRunning bool     `json:"watcher_running"`
	MCPRegistered  bool     `json:"mcp_registered"`
	MCPKnown       bool     `json:"mcp_known"` // Claude Code's configuration could be read
	MCPCommand     []string `json:"mcp_command,omitempty"`
}

// warning is one thing to fix, with the command that fixes it.
type warning struct {
	Problem string `json:"problem"`
	Fix     string `json:"fix"`
}

func (c *statsCmd) Run(g *Globals) error {
	cfg, err := g.config()
	if err != nil {
		return err
	}
	st, err := store.Open(cfg.IndexDir).Stats()
	if errors.Is(err, manifest.ErrNoIndex) {
		return fmt.Errorf("no index in %s yet: run `recall index`", cfg.IndexDir)
	}
	if err != nil {
		return err
	}
	rep := statsReport{IndexStats: st, Sources: cfg.Sources, Wiring: readWiring(cfg), Warnings: []warning{}, AgentSources: []string{}}
	for _, a := range cfg.Agents {
		rep.AgentSources = append(rep.AgentSources, a.String())
	}
	onDisk := diskFiles(cfg.Sources)
	if rep.Freshness, err = store.Open(cfg.IndexDir).CheckFreshness(onDisk, cfg.CurrentSession); err != nil {
		return err
	}
	if !c.NoVerify {
		if rep.Damage, err = verifyIndex(cfg.IndexDir); err != nil {
			return err
		}
	}
	rep.MissingHelper = missingHelper(cfg.Agents)
	rep.Warnings = healthWarnings(&rep)
	if c.JSON {
		enc := json.NewEncoder(g.env.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return writeStats(g.env.stdout, &rep)
}

// diskFiles lists the transcripts under the sources, for the freshness
// check (problems reading them are what `recall index` reports).
func diskFiles(sources []string) []store.DiskFile {
	found := transcript.Discover(sources, func(string) {})
	out := make([]store.DiskFile, len(found))
	for i, t := range found {
		out[i] = store.DiskFile{Path: t.Path, Session: t.Session, Size: t.Stat.Size, MtimeNs: t.Stat.MtimeNs}
	}
	return out
}

// readWiring reads, without changing anything, whether the hooks, the
// skill, the watcher and the MCP server are in place.
func readWiring(cfg indexer.Config) wiring {
	s, err := claude.DefaultSetup("")
	if err != nil {
		return wiring{}
	}
	s.MCP = mcpSetup()
	st := claude.ReadStatus(s)
	return wiring{
		Settings: st.Settings, Hooks: st.Hooks, HooksPath: st.HooksPath, Skill: st.Skill,
		WatcherRunning: watch.Running(cfg.IndexDir),
		MCPRegistered:  st.MCP.IsRecall(), MCPKnown: st.MCP.Known, MCPCommand: st.MCP.Command,
	}
}

// staleAfter is how far the newest transcript write may run ahead of the
// last index run before stats warns: hooks index at the end of each turn,
// so more means they are not running.
const staleAfter = 10 * time.Minute

func healthWarnings(r *statsReport) []warning {
	var out []warning
	add := func(problem, fix string) { out = append(out, warning{problem, fix}) }
	if d := r.Damage; d != nil && len(d.Blocks) > 0 {
		fix := fmt.Sprintf("run `recall index --repair`: it reads %d %s again", len(d.Reread), plural(len(d.Reread), "transcript", "transcripts"))
		if len(d.Lost) > 0 {
			fix += fmt.Sprintf("; %d rows of %d gone %s cannot be recovered", sumRows(d.Lost), len(d.Lost), plural(len(d.Lost), "transcript", "transcripts"))
		}
		add(fmt.Sprintf("%d rows %s %s not read (%s): searches skip %s", len(d.Blocks), plural(len(d.Blocks), "block", "blocks"),
			plural(len(d.Blocks), "does", "do"), d.Blocks[0].Err, plural(len(d.Blocks), "it", "them")), fix)
	}
	if d := r.Damage; d != nil && len(d.Derived) > 0 {
		add(fmt.Sprintf("%d derived %s do not read (%s)", len(d.Derived), plural(len(d.Derived), "file", "files"), d.Derived[0]),
			"run `recall index --repair`: it rebuilds them from the rows")
	}
	if r.Freshness.OnDisk == 0 && len(r.Sources) > 0 { // none: only other agents' sources were given
		add("no transcripts under "+strings.Join(r.Sources, ", "),
			"give the transcript folder with --source DIR or RECALL_SOURCE, or set CLAUDE_CONFIG_DIR if Claude Code keeps its data elsewhere")
	}
	if f := r.Freshness; f.Pending > 0 && f.Lag > staleAfter && !r.Wiring.WatcherRunning {
		add(fmt.Sprintf("%d %s written since the last index run (the newest %s after it)", f.Pending, plural(f.Pending, "transcript", "transcripts"), roundDuration(f.Lag)),
			"run `recall index` (searches also index first, unless --no-update)")
	}
	if r.TermIndex != "" {
		add("searches read every row: "+r.TermIndex, "run `recall index`")
	}
	if r.ForgetDamaged != "" {
		add(r.ForgetDamaged, "restore forgotten-v1.tsv from a backup, or remove it (what it kept out comes back at the next run) and forget again")
	}
	if r.ForgetPending {
		add("a forget (or --undo) is not applied yet: it was interrupted", "run `recall index`: it finishes it")
	}
	if n := len(r.Strays); n > 0 {
		add(fmt.Sprintf("%d %s in the index directory no manifest names (%s), left by an interrupted forget, rebuild or compaction: `zstdcat rows-*.zst` prints their rows too",
			n, plural(n, "file", "files"), r.Strays[0]), "run `recall index`: it removes them")
	}
	// Its shares were set for Claude Code's transcripts: another agent's
	// noise is its harness's records (system prompts, tool output), which
	// no share of says a rule is wrong.
	claude := r.Agents[record.AgentClaude]
	for _, w := range indexer.ExclusionWarnings(claude.Excluded, claude.Rows, "") {
		add(w, "see `recall stats --json` for the counts")
	}
	for _, w := range transcriptWarnings(r.IndexStats) {
		add(w.Problem, w.Fix)
	}
	if len(r.Wiring.Hooks) == 0 {
		add("the Claude Code hooks are not installed: the index is updated only when you search or run `recall index`", "run `recall install`")
	}
	if !r.Wiring.Skill {
		add("the recall skill is not installed: Claude does not know about recall", "run `recall install`")
	}
	if r.Wiring.MCPKnown && !r.Wiring.MCPRegistered {
		add("the MCP server is not registered: Claude cannot search by itself", "run `recall install` (or `claude mcp add --scope user recall -- /path/to/recall mcp`)")
	}
	if r.Wiring.MCPRegistered && len(r.Wiring.MCPCommand) > 0 && !fileExists(r.Wiring.MCPCommand[0]) {
		add("the MCP server runs "+r.Wiring.MCPCommand[0]+", which does not exist", "run `recall install` from the recall you use")
	} else if r.Wiring.MCPRegistered && len(r.Wiring.MCPCommand) > 1 && r.Wiring.MCPCommand[1] == "mcp" && mcpBinaryFor(r.Wiring.MCPCommand[0]) == "" {
		add("the MCP server runs `recall mcp`, and there is no recall-mcp beside "+r.Wiring.MCPCommand[0]+" nor on PATH for it to hand over to: Claude cannot search by itself", "`make install`, or `go install github.com/recall-dev/recall/cmd/recall-mcp@latest`")
	}
	if r.MissingHelper != "" {
		add("OpenCode's database under "+r.MissingHelper+" is read by recall-opencode, and there is none beside recall nor on PATH: its sessions are not indexed", "`make install`, or `go install github.com/recall-dev/recall/cmd/recall-opencode@latest`")
	}
	if r.Wiring.HooksPath != "" && !fileExists(r.Wiring.HooksPath) {
		add("the hooks run "+r.Wiring.HooksPath+", which does not exist", "run `recall install` from the recall you use")
	}
	return out
}

// missingHelper is the first OpenCode source holding a database when
// this recall finds no recall-opencode to read it, else "".
func missingHelper(sources []agents.Source) string {
	for _, a := range sources {
		if a.Agent == record.AgentOpenCode && opencode.HasDatabase(a.Path) && opencode.CannotReadDatabases() {
			return a.Path
		}
	}
	return ""
}

// transcriptWarnings says when one reason takes more than a tenth of the
// transcripts or sessions: files not read as text, transcripts an
// earlier recall left out and that are gone, sessions of headless runs.
func transcriptWarnings(st *store.IndexStats) []warning {
	files := 0
	for _, n := range st.Transcripts {
		files += n
	}
	var out []warning
	over := func(n, of int) bool { return of > 0 && float64(n) > indexer.TooMuch*float64(of) }
	if over(len(st.BinaryFiles), files) {
		out = append(out, warning{fmt.Sprintf("%d of %d transcripts were skipped whole as not text", len(st.BinaryFiles), files),
			"check the files `recall stats` lists under \"not text\"; a replaced file is read again"})
	}
	if over(st.ForkFiles, files) {
		out = append(out, warning{fmt.Sprintf("%d of %d transcripts were left out whole by an earlier recall as forks and deleted before this one could read them", st.ForkFiles, files),
			"nothing brings them back; newer transcripts are all read"})
	}
	if over(st.HeadlessSessions, st.Sessions) {
		out = append(out, warning{fmt.Sprintf("%d of %d sessions are headless runs (claude -p, the SDKs), which searches leave out", st.HeadlessSessions, st.Sessions),
			"search them with --include-headless (or name one with --session)"})
	}
	return out
}

func writeStats(w io.Writer, r *statsReport) error {
	st := r.IndexStats
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "index\t%s (format v%d, text rules v%d, %s on disk)\n", render.Safe(st.Dir), st.FormatVersion, st.Feature, indexer.HumanBytes(st.DiskBytes))
	fmt.Fprintf(tw, "updated\t%s (%s ago)%s\n", st.Updated.Local().Format("2006-01-02 15:04:05"), roundDuration(time.Since(st.Updated)), freshnessNote(r.Freshness))
	fmt.Fprintf(tw, "rows\t%d in %d blocks (%s of message text)\n", st.Rows, st.Blocks, indexer.HumanBytes(st.TextBytes))
	fmt.Fprintf(tw, "term index\t%d segments covering %d of %d blocks\n", st.TermSegments, st.TermBlocks, st.Blocks)
	if st.TermIndex != "" {
		fmt.Fprintf(tw, "  not used\tsearches read every row: %s\n", render.Safe(st.TermIndex))
	}
	if st.HiddenRows > 0 {
		fmt.Fprintf(tw, "hidden\t%d rows of replaced transcripts (removed at the next compaction)\n", st.HiddenRows)
	}
	fmt.Fprintf(tw, "sessions\t%d in %d projects (`recall sessions` lists them)\n", st.Sessions, st.Projects)
	if len(r.Sources) > 0 {
		fmt.Fprintf(tw, "transcripts\t%s indexed; %d on disk under %s\n", kindCounts(st.Transcripts), r.Freshness.OnDisk, render.Safe(strings.Join(r.Sources, ", ")))
	} else {
		fmt.Fprintf(tw, "transcripts\t%s indexed; no Claude Code source given (only other agents')\n", kindCounts(st.Transcripts))
	}
	writeAgents(tw, st.Agents, r.AgentSources)
	fmt.Fprintf(tw, "archive\t%d %s whose transcript Claude Code deleted (%d transcripts, %d rows) live only in the index\n",
		st.Archived, plural(st.Archived, "session", "sessions"), st.GoneFiles, st.GoneRows)
	writeExcluded(tw, st.Excluded)
	writeLeftOut(tw, st)
	if st.ForgetDamaged != "" {
		fmt.Fprintln(tw, "forgotten\tunreadable: no transcript is read until it reads (see the warnings)")
	} else {
		writeForgotten(tw, st.Forgotten)
	}
	writeDamage(tw, r.Damage)
	if len(st.Strays) > 0 {
		fmt.Fprintf(tw, "strays\t%s (not the index: `recall index` removes them)\n", render.Safe(strings.Join(st.Strays, ", ")))
	}
	writeWiring(tw, r.Wiring)
	if len(r.Warnings) == 0 {
		fmt.Fprintln(tw, "warnings\tnone")
	}
	for i, wn := range r.Warnings {
		label := ""
		if i == 0 {
			label = "warnings"
		}
		fmt.Fprintf(tw, "%s\t%s → %s\n", label, render.Safe(wn.Problem), wn.Fix)
	}
	return tw.Flush()
}

// writeForgotten says what `recall forget` keeps out: counts, never the
// ids or paths (the tombstone holds only their hashes).
func writeForgotten(tw io.Writer, f forget.Counts) {
	if f.Rules == 0 && f.Pending == 0 {
		fmt.Fprintln(tw, "forgotten\tnothing")
		return
	}
	var kinds []string
	for _, k := range []struct {
		n          int
		one, other string
	}{{f.Sessions, "session", "sessions"}, {f.Projects, "project", "projects"}, {f.TimeRanges, "time range", "time ranges"}} {
		if k.n > 0 {
			kinds = append(kinds, fmt.Sprintf("%d %s", k.n, plural(k.n, k.one, k.other)))
		}
	}
	fmt.Fprintf(tw, "forgotten\t%d %s (%s): %d %s kept out whole, %d %s kept out wherever copied; `recall forget --undo` takes one back\n",
		f.Rules, plural(f.Rules, "forget", "forgets"), strings.Join(kinds, ", "),
		f.Transcripts, plural(f.Transcripts, "transcript", "transcripts"), f.Messages, plural(f.Messages, "message", "messages"))
}

func freshnessNote(f store.Freshness) string {
	switch {
	case f.Pending == 0:
		return "; up to date with the transcripts"
	case f.Lag == 0:
		return fmt.Sprintf("; %d %s written since", f.Pending, plural(f.Pending, "transcript", "transcripts"))
	}
	return fmt.Sprintf("; %d %s written since, the newest %s after it", f.Pending, plural(f.Pending, "transcript", "transcripts"), roundDuration(f.Lag))
}

// writeLeftOut says what the index keeps but searches leave out, and
// which transcripts it could not read at all.
func writeLeftOut(tw io.Writer, st *store.IndexStats) {
	if n := st.Excluded[filter.Headless.String()]; n > 0 {
		fmt.Fprintf(tw, "headless\t%d %s from headless runs (claude -p, the SDKs; %d whole %s): kept, left out of searches unless --include-headless\n",
			n, plural(int(n), "row", "rows"), st.HeadlessSessions, plural(st.HeadlessSessions, "session", "sessions"))
	}
	for i, path := range st.BinaryFiles {
		if i == damageListed {
			fmt.Fprintf(tw, "\t… and %d more (--json lists them all)\n", len(st.BinaryFiles)-i)
			break
		}
		label := ""
		if i == 0 {
			label = "not text"
		}
		fmt.Fprintf(tw, "%s\t%s: skipped whole (NUL bytes, or no line that reads as JSON); read again if replaced\n", label, render.Safe(path))
	}
}

// writeExcluded lists the exclusions by reason, "nothing" when there are
// none (a fresh index) rather than an empty heading. Headless rows are
// kept, not excluded: writeLeftOut says so.
// excludedBrief is "; left out: 12 noise, 3 copy" for an agent's line
// ("" when nothing was), in the reasons' order.
func excludedBrief(excluded map[string]int64) string {
	var parts []string
	for _, r := range filter.Reasons() {
		if n := excluded[r.String()]; n > 0 && r != filter.Headless {
			parts = append(parts, fmt.Sprintf("%d %s", n, r))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "; left out: " + strings.Join(parts, ", ")
}

func writeExcluded(tw io.Writer, excluded map[string]int64) {
	label := "excluded"
	for _, r := range filter.Reasons() {
		if r == filter.Headless {
			continue
		}
		if n := excluded[r.String()]; n > 0 {
			fmt.Fprintf(tw, "%s\t%s: %d, %s\n", label, r, n, r.Explanation())
			label = ""
		}
	}
	if label != "" {
		fmt.Fprintln(tw, "excluded\tnothing")
	}
}

func writeWiring(tw io.Writer, wr wiring) {
	hooks := "not installed (`recall install`)"
	if len(wr.Hooks) > 0 {
		hooks = fmt.Sprintf("%s in %s, running %s", strings.Join(wr.Hooks, " and "), render.Safe(wr.Settings), render.Safe(wr.HooksPath))
	}
	fmt.Fprintf(tw, "hooks\t%s\n", hooks)
	fmt.Fprintf(tw, "skill\t%s\n", yesNo(wr.Skill, "installed", "not installed (`recall install`)"))
	fmt.Fprintf(tw, "watcher\t%s\n", yesNo(wr.WatcherRunning, "running", "not running (hooks and searches keep the index current; `recall watch` follows every write)"))
	mcp := "not registered (`recall install`)"
	switch {
	case wr.MCPRegistered:
		mcp = "registered: " + render.Safe(strings.Join(wr.MCPCommand, " "))
	case !wr.MCPKnown:
		mcp = "unknown (Claude Code's configuration could not be read)"
	}
	fmt.Fprintf(tw, "mcp server\t%s\n", mcp)
}

func yesNo(ok bool, yes, no string) string {
	if ok {
		return yes
	}
	return no
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// roundDuration shows a duration to the second, or the minute past an hour.
func roundDuration(d time.Duration) string {
	if d >= time.Hour {
		return d.Round(time.Minute).String()
	}
	return d.Round(time.Second).String()
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// writeAgents lists, when other agents are read or indexed, each agent's
// session files and rows, and the other agents' places read.
func writeAgents(tw io.Writer, by map[string]store.AgentStats, sources []string) {
	if len(sources) == 0 && len(by) <= 1 {
		return // Claude Code's alone: the lines above say it all
	}
	label := "agents"
	for _, a := range record.Agents() {
		if s, ok := by[a]; ok {
			fmt.Fprintf(tw, "%s\t%s: %d %s, %d rows%s\n", label, a, s.Files, plural(s.Files, "file", "files"), s.Rows, excludedBrief(s.Excluded))
			label = ""
		}
	}
	if label != "" {
		fmt.Fprintf(tw, "agents\tnone indexed yet\n")
	}
	if len(sources) > 0 {
		fmt.Fprintf(tw, "agent sources\t%s\n", render.Safe(strings.Join(sources, ", ")))
	}
}

func kindCounts(kinds map[string]int) string {
	var parts []string
	for _, k := range []string{record.KindMain, record.KindSubagent, record.KindAgentOld} { // Claude Code's; the others' are on the agents line
		if n := kinds[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, map[string]string{
				record.KindMain: "main", record.KindSubagent: "subagent", record.KindAgentOld: "old-layout agent"}[k]))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// verifyIndex reads the whole index (snapshot.Verify) and sorts the
// transcripts that lost rows by what a repair can do for them.
func verifyIndex(dir string) (*damageReport, error) {
	d, err := store.Open(dir).Verify()
	if err != nil {
		return nil, fmt.Errorf("verify %s: %w", dir, err)
	}
	rep := &damageReport{Blocks: d.Blocks, Derived: d.Derived, Reread: map[string]int64{}, Lost: map[string]int64{}}
	for path, n := range d.Affected {
		if fileExists(path) {
			rep.Reread[path] = n
		} else {
			rep.Lost[path] = n
		}
	}
	return rep, nil
}

// writeDamage says whether the index reads whole, and if not, what a
// repair would do, transcript by transcript (the first damageListed of
// each kind; --json lists them all).
func writeDamage(tw io.Writer, d *damageReport) {
	switch {
	case d == nil:
		fmt.Fprintln(tw, "damage\tnot checked (--no-verify)")
		return
	case len(d.Blocks) == 0 && len(d.Derived) == 0:
		fmt.Fprintln(tw, "damage\tnone: every rows block and derived file reads")
		return
	}
	fmt.Fprintf(tw, "damage\t%d rows %s and %d derived %s do not read\n", len(d.Blocks), plural(len(d.Blocks), "block", "blocks"),
		len(d.Derived), plural(len(d.Derived), "file", "files"))
	listDamage(tw, d.Reread, "a repair reads again")
	listDamage(tw, d.Lost, "lost (the transcript is gone)")
}

// damageListed caps each list of transcripts in the text report.
const damageListed = 10

func listDamage(tw io.Writer, rows map[string]int64, what string) {
	paths := slices.Sorted(maps.Keys(rows))
	for i, path := range paths {
		if i == damageListed {
			fmt.Fprintf(tw, "\t  … and %d more (--json lists them all)\n", len(paths)-i)
			break
		}
		fmt.Fprintf(tw, "\t  %s: %s (%d rows)\n", what, render.Safe(path), rows[path])
	}
}

func sumRows(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}
