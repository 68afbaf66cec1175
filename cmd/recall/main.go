// Command recall is a grep-style memory of past Claude Code sessions.
//
// Each command lives in its own file with a Run method; the logic lives in
// the indexer, filter, rank and search packages.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/recall-dev/recall/claude"
	"github.com/recall-dev/recall/internal/cpuprofile"
	"github.com/recall-dev/recall/search/show"

	"github.com/alecthomas/kong"

	"github.com/recall-dev/recall/render"
	"github.com/recall-dev/recall/search"
)

// version is set by the Makefile through -ldflags.
var version = "dev"

// cli is the whole command tree. Search is the default command, so
// `recall jwt auth` and `recall search jwt auth` are the same.
//
// The commands are given to kong by commandsOf, not by struct tags, so a
// run can build only the command it runs (chosenCommands): kong parses
// every tag and expands every help text of what it is given, 1.1 ms for
// the whole tree against 0.2 ms for `index` alone — a fifth of a `recall
// index` that finds nothing to do.
type cli struct {
	Globals

	Search    searchCmd    `kong:"-"`
	Show      showCmd      `kong:"-"`
	Sessions  sessionsCmd  `kong:"-"`
	Resume    resumeCmd    `kong:"-"`
	Index     indexCmd     `kong:"-"`
	Stats     statsCmd     `kong:"-"`
	Watch     watchCmd     `kong:"-"`
	Forget    forgetCmd    `kong:"-"`
	MCP       mcpCmd       `kong:"-"`
	Hook      hookCmd      `kong:"-"`
	Hint      hintCmd      `kong:"-"`
	Install   installCmd   `kong:"-"`
	Uninstall uninstallCmd `kong:"-"`
	Version   versionFlag  `help:"Print the version and exit."`
}

// command is one subcommand as kong is given it.
type command struct {
	name, help string
	target     any
	tags       []string
}

// commandsOf lists the commands of c, in the order help lists them.
func commandsOf(c *cli) []command {
	return []command{
		{"search", "Search past sessions (default command).", &c.Search, []string{`default:"withargs"`}},
		{"show", "Print the messages around a hit, or a whole session, from the index.", &c.Show, nil},
		{"sessions", "List indexed sessions, newest first.", &c.Sessions, nil},
		{"resume", "Print the command that reopens a session in Claude Code (--exec runs it).", &c.Resume, nil},
		{"index", "Bring the index up to date with the transcripts.", &c.Index, nil},
		{"stats", "Check the index and recall's wiring into Claude Code: what it holds, what it excluded, what needs fixing.", &c.Stats, nil},
		{"watch", "Keep the index up to date as Claude Code writes.", &c.Watch, nil},
		{"forget", "Remove a session, a project or old messages from the index, for good.", &c.Forget, nil},
		{"mcp", "Serve search, show and sessions to Claude Code as an MCP server over stdio.", &c.MCP, nil},
		{"hook", "Entry point for Claude Code hooks (reads the hook JSON on stdin).", &c.Hook, nil},
		{"hint", "Print the prompt hint the hook would give for a prompt (--explain: why or why not).", &c.Hint, nil},
		{"install", "Wire recall into Claude Code (hooks, skill and MCP server).", &c.Install, nil},
		{"uninstall", "Remove what 'recall install' added.", &c.Uninstall, nil},
	}
}

func main() {
	stop := cpuprofile.Start("recall", os.Stderr) // make pgo's profile, when asked
	code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run parses args and runs the chosen command on the given streams in the
// process's working directory, returning the exit status: 0 success or
// match, 1 no match, 2 error (like grep).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cwd, _ := os.Getwd() // "" if the directory is gone; --project . then says so
	return runWith(env{stdin: stdin, stdout: stdout, stderr: stderr, cwd: cwd}, args)
}

// runWith is run with every part of the process it touches given.
func runWith(e env, args []string) int {
	return runCommands(e, args, chosenCommands)
}

// runCommands is runWith building the commands choose picks for args
// (tests compare chosenCommands with the whole tree).
func runCommands(e env, args []string, choose func(*cli, []string) []command) int {
	c := cli{Globals: Globals{env: e}}
	opts := append([]kong.Option{
		kong.Name("recall"),
		kong.Description("A grep-style memory of every past Claude Code session."),
		kong.UsageOnError(),
		flagDefaults(),
		stringLists(),
		kong.Writers(e.stdout, e.stderr),
		kong.Exit(func(code int) { panic(exitPanic(code)) }),
	}, commandOptions(choose(&c, args))...)
	parser, err := kong.New(&c, opts...)
	if err != nil {
		fmt.Fprintln(e.stderr, "recall:", err)
		return 2
	}
	return runParsed(parser, &c, args)
}

// flagDefaults gives the flags whose default tag names a variable
// (default:"${default_sessions}") their defaults from package search,
// where each is defined once.
//
// They are not kong.Vars: kong interpolates every variable again for every
// flag it builds, with a regular expression each time, and the eight
// variables recall gave it (these and the version) made 60% of the cost
// of building the search command (0.4 of 0.65 ms, a tenth of a search's
// start). Here each default that names a variable is resolved once, after
// kong builds the tree and before it interpolates the rest; a name with no
// value here is an error, as it is in kong.
func flagDefaults() kong.Option {
	values := map[string]string{
		"default_sessions":      fmt.Sprint(search.DefaultSessions),
		"default_messages":      fmt.Sprint(search.DefaultMessages),
		"default_context":       fmt.Sprint(search.DefaultContext),
		"default_half_life":     search.FormatDuration(search.DefaultHalfLife),
		"default_recall_window": search.DefaultRecallWindow,
		"default_show_context":  fmt.Sprint(show.DefaultContext),
		"default_session_list":  fmt.Sprint(search.DefaultSessionList),
	}
	return kong.PostBuild(func(k *kong.Kong) error {
		return kong.Visit(k.Model, func(n kong.Visitable, next kong.Next) error {
			v, ok := n.(*kong.Value)
			if !ok {
				return next(nil)
			}
			name, named := variableName(v.Default)
			if !named {
				return next(nil)
			}
			value, ok := values[name]
			if !ok {
				return fmt.Errorf("default value for %s: undefined variable ${%s}", v.Summary(), name)
			}
			v.Default = value
			return next(nil)
		})
	})
}

// variableName is the name in a default written "${name}".
func variableName(s string) (string, bool) {
	rest, ok := strings.CutPrefix(s, "${")
	if !ok {
		return "", false
	}
	return strings.CutSuffix(rest, "}")
}

// versionFlag is --version: it prints the version and exits, as
// kong.VersionFlag does, but from this package's version rather than from
// kong.Vars (see flagDefaults for why recall gives kong no variables).
type versionFlag bool

// BeforeReset runs when the flag is given, before defaults are applied
// and before a command's required arguments are checked.
func (versionFlag) BeforeReset(app *kong.Kong) error {
	fmt.Fprintln(app.Stdout, version)
	app.Exit(0)
	return nil
}

// exitPanic carries kong's exit code (from --help or --version) out of Parse.
type exitPanic int

func runParsed(parser *kong.Kong, c *cli, args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			ec, ok := r.(exitPanic)
			if !ok {
				panic(r)
			}
			code = int(ec)
		}
	}()
	ctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintln(c.env.stderr, "recall:", render.SafeText(err.Error()))
		if hint := searchHint(parser, args, err); hint != "" {
			fmt.Fprintln(c.env.stderr, "recall:", render.SafeText(hint))
		}
		return 2
	}
	if err := ctx.Run(&c.Globals); err != nil {
		return exitCodeOf(c.env.stderr, err)
	}
	return 0
}

// searchHint is what to run instead when words meant for a search were
// read as a command's ("recall install docker"): a first word that
// names a command runs that command, and `recall search` takes any
// words. "" when the arguments do not look like that.
func searchHint(parser *kong.Kong, args []string, err error) string {
	if !strings.HasPrefix(err.Error(), "unexpected argument") {
		return ""
	}
	var words []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			words = append(words, a)
		}
	}
	if len(words) == 0 || words[0] == "search" {
		return ""
	}
	for _, cmd := range parser.Model.Children {
		if cmd.Name == words[0] {
			return fmt.Sprintf("%q runs the %s command; to search for these words: recall search %s", words[0], cmd.Name, shellWords(words))
		}
	}
	return ""
}

// shellWords is words as a shell command line would give them back.
func shellWords(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = claude.ShellQuote(w)
	}
	return strings.Join(quoted, " ")
}

// exitCodeOf prints err (unless it is a silent no-match) and maps it to an
// exit status.
func exitCodeOf(stderr io.Writer, err error) int {
	var coder interface{ ExitCode() int }
	if errors.As(err, &coder) {
		if msg := sayCLI(err); msg != "" {
			fmt.Fprintln(stderr, "recall:", render.SafeText(msg))
		}
		return coder.ExitCode()
	}
	// An error may quote what it could not read: a file name, a damaged
	// row, the query as typed.
	fmt.Fprintln(stderr, "recall:", render.SafeText(sayCLI(err)))
	return 2
}

// errNoMatch is returned by search-like commands when nothing matched:
// exit status 1 and nothing on stderr, as grep does.
type noMatchError struct{}

func (noMatchError) Error() string { return "" }
func (noMatchError) ExitCode() int { return 1 }

// notFoundError is a lookup that found nothing (a session id no indexed
// session has): exit status 1, like no match, with the message on stderr.
type notFoundError struct{ err error }

func (e notFoundError) Error() string { return e.err.Error() }
func (e notFoundError) Unwrap() error { return e.err }
func (notFoundError) ExitCode() int   { return 1 }

// exitStatus is the exit status of a program recall ran for the user
// (resume --exec), passed on as recall's own.
type exitStatus int

func (e exitStatus) Error() string { return "" }
func (e exitStatus) ExitCode() int { return int(e) }
