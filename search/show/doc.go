// Package show reads one session back from the index for `recall show`
// and the MCP server, in conversation order (each transcript in file
// order, subagents merged in by time): the whole session, or the
// messages around one line or around the first message that matches a
// search's words, which are highlighted.
package show
