// Package render prints what package search found, for each reader: the
// human format (with colour on a terminal), markdown, JSON, the session
// list, the hints of a search that matched nothing, and the terminal-safe
// text every one of them is made of (Safe, SafeText). The engine never
// prints; the CLI, the MCP server and the prompt hint all print through
// here.
package render
