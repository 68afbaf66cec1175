package render

import (
	"fmt"
	"strings"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/search"
)

// NoMatchHints explain a search that found nothing because a filter
// matches no indexed session at all: a --project no session is in, a
// --session no indexed id starts with, or only the current session,
// which is never shown. p is what the user gave, req what it became; m is
// the committed manifest. Each hint is one line for stderr (the exit
// status stays 1).
func NoMatchHints(m *manifest.Manifest, p search.Params, req search.Request) []string {
	var hints []string
	files := m.SessionFiles()
	if len(req.Projects) > 0 && !anySession(files, func(_ string, f *record.FileState) bool { return filter.ProjectMatches(f.Project, req.Projects) }) {
		hints = append(hints, fmt.Sprintf("no indexed session is in project %s (`recall sessions` lists them)", orList(p.Projects, req.Projects)))
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
			hints = append(hints, fmt.Sprintf("no indexed session id starts with %s (`recall sessions` lists them)", strings.Join(req.Sessions, " or ")))
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
