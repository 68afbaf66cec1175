package filter

import (
	"path/filepath"
	"strings"
)

// The project selector, one for every command that takes --project:
// search, sessions and forget (and the MCP tools) match a session's
// project the same way, so that what `recall forget --project X` removes
// is exactly what `recall --project X` searches (issue 23: forget took
// "/" for nothing and refused name fragments, search took "/" for
// everything).

// InProject reports whether path is root or inside it. The root "/" holds
// every absolute path; an empty root holds nothing.
func InProject(path, root string) bool {
	if root == "" {
		return false
	}
	trimmed := strings.TrimSuffix(root, "/") // "/srv/app/" is "/srv/app"
	return path == root || path == trimmed && trimmed != "" || strings.HasPrefix(path, trimmed+"/")
}

// ProjectMatches reports whether a session's project satisfies one of
// the --project values: an absolute path holds that project and those
// inside it (InProject), any other value is a fragment of the project
// path, matched without regard to case. No value: every project.
func ProjectMatches(project string, wanted []string) bool {
	if len(wanted) == 0 {
		return true
	}
	for _, w := range wanted {
		if InProject(project, w) {
			return true
		}
		if !filepath.IsAbs(w) && strings.Contains(strings.ToLower(project), strings.ToLower(w)) {
			return true
		}
	}
	return false
}
