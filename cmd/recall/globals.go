package main

import (
	"github.com/recall-dev/recall/indexer"
)

// Globals are the flags every command shares.
type Globals struct {
	IndexDir       string   `name:"index-dir" env:"RECALL_INDEX_DIR" placeholder:"DIR" help:"Index directory (default $XDG_DATA_HOME/recall, else ~/.local/share/recall)."`
	Source         []string `name:"source" sep:"none" placeholder:"DIR" help:"Transcript root, repeatable (default $RECALL_SOURCE, a colon-separated list, else $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects)."`
	CurrentSession string   `name:"current-session" placeholder:"ID" help:"Session to treat as current (default $CLAUDE_CODE_SESSION_ID, else $CLAUDE_SESSION_ID)."`
	Verbose        bool     `short:"v" help:"Log progress details on stderr."`
}

// config resolves the global flags and environment into indexer settings.
func (g *Globals) config() (indexer.Config, error) {
	return indexer.ResolveConfig(indexer.ConfigInput{
		IndexDir:       g.IndexDir,
		Sources:        g.Source,
		CurrentSession: g.CurrentSession,
	})
}
