package render

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/recall-dev/recall/store/manifest"
	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/search"
)

// NoMatchHints explain, to a reader for whom lister is what lists the
// sessions (a command, a tool), a search that found nothing because a filter
// matches no indexed session at all: a --project no session is in, a
// --session no indexed id starts with, or only the current session,
// which is never shown. p is what the user gave, req what it became; m is
// the committed manifest. Each hint is one line for stderr (the exit
// status stays 1).
//
// An index that holds no session, and a --since or --until past the
// time of every indexed message (first and last, zero when unknown),
// are said too.
func NoMatchHints(m *manifest.Manifest, first, last time.Time, p search.Params, req search.Request, lister string) []string {
	var hints []string
	files := m.SessionFiles()
	if len(files) == 0 {
		return []string{"the index holds no session yet"}
	}
	if !last.IsZero() && !req.Since.IsZero() && req.Since.After(last) {
		hints = append(hints, fmt.Sprintf("no indexed message is from %s on: the newest is from %s", req.Since.Format(time.DateOnly), last.Format(time.DateOnly)))
	}
	if !first.IsZero() && !req.Until.IsZero() && req.Until.Before(first) {
		hints = append(hints, fmt.Sprintf("no indexed message is from before %s: the oldest is from %s", req.Until.Format(time.DateOnly), first.Format(time.DateOnly)))
	}
	if len(req.Projects) > 0 && !anySession(files, func(_ string, f *record.FileState) bool { return filter.ProjectMatches(f.Project, req.Projects) }) {
		hints = append(hints, fmt.Sprintf("no indexed session is in project %s (%s lists them)", orList(p.Projects, req.Projects), lister))
	}
	if len(req.Sessions) > 0 {
		matches := func(id string, _ *record.FileState) bool {
			for _, s := range req.Sessions {
				if record.SessionHasPrefix(id, s) {
					return true
				}
			}
			return false
		}
		switch {
		case !anySession(files, matches):
			hints = append(hints, fmt.Sprintf("no indexed session id starts with %s (%s lists them)", strings.Join(req.Sessions, " or "), lister))
		case req.CurrentSession != "" && !anySession(files, func(id string, f *record.FileState) bool { return id != req.CurrentSession && matches(id, f) }):
			hints = append(hints, fmt.Sprintf("--session %s is the current session, which searches never show", strings.Join(req.Sessions, " ")))
		}
	}
	return hints
}

func anySession(files map[string][]*record.FileState, ok func(id string, f *record.FileState) bool) bool {
	for id, fs := range files {
		for _, f := range fs {
			if ok(id, f) {
				return true
			}
		}
	}
	return false
}

// orList names the --project values as given, with what a "." or a path
// became when it differs.
func orList(given, resolved []string) string {
	parts := make([]string, len(resolved))
	for i, r := range resolved {
		parts[i] = r
		if i < len(given) && given[i] != r {
			parts[i] = fmt.Sprintf("%s (%s)", given[i], r)
		}
	}
	return Safe(strings.Join(parts, " or "))
}

// SourceHints say which transcript roots give nothing to index: one that
// does not exist, or holds no transcript folder, each with what sets it.
// A search that found nothing says them, as the reason may be there.
func SourceHints(sources []string) []string {
	var hints []string
	for _, src := range sources {
		entries, err := os.ReadDir(src)
		switch {
		case err != nil && os.IsNotExist(err):
			hints = append(hints, fmt.Sprintf("the transcript folder %s does not exist, so nothing is indexed from it (--source, $RECALL_SOURCE or $CLAUDE_CONFIG_DIR set where transcripts are read)", src))
		case err != nil:
			hints = append(hints, fmt.Sprintf("the transcript folder %s cannot be read: %v", src, err))
		case !holdsTranscripts(src, entries):
			hints = append(hints, fmt.Sprintf("the transcript folder %s holds no transcripts (project folders of *.jsonl files, as ~/.claude/projects does)", src))
		}
	}
	return hints
}

// holdsTranscripts reports whether a transcript root's project folders
// (or the root itself) hold a .jsonl file; it reads one level down only.
func holdsTranscripts(root string, entries []os.DirEntry) bool {
	for _, e := range entries {
		if !e.IsDir() {
			if strings.HasSuffix(e.Name(), ".jsonl") {
				return true
			}
			continue
		}
		inner, err := os.ReadDir(filepath.Join(root, e.Name()))
		if err != nil {
			continue
		}
		for _, f := range inner {
			if strings.HasSuffix(f.Name(), ".jsonl") {
				return true
			}
		}
	}
	return false
}

// WhyNothing are the hints of a search or a listing that found nothing:
// NoMatchHints over the index snap reads, and, when the index holds no
// session at all, SourceHints of the transcript folders it reads.
func WhyNothing(m *manifest.Manifest, snap *snapshot.Snapshot, sources []string, p search.Params, req search.Request, lister string) []string {
	first, last := snap.TimeSpan()
	hints := NoMatchHints(m, first, last, p, req, lister)
	if len(m.SessionFiles()) == 0 {
		hints = append(hints, SourceHints(sources)...)
	}
	return hints
}
