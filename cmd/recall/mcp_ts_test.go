package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tsSDK is the node_modules folder of the official TypeScript MCP SDK:
// $RECALL_TS_SDK, else one installed once into the user's cache (as the
// environment was before TestMain made HOME a temporary folder). The test
// skips, saying why, where there is no Node or no registry.
func tsSDK(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node on PATH: the TypeScript SDK's client is not tried")
	}
	if dir := originalEnv("RECALL_TS_SDK"); dir != "" {
		return dir
	}
	cache := originalEnv("XDG_CACHE_HOME")
	if cache == "" && originalEnv("HOME") != "" {
		cache = filepath.Join(originalEnv("HOME"), ".cache")
	}
	if cache == "" {
		t.Skip("no cache directory to install the TypeScript SDK in (no HOME)")
	}
	prefix := filepath.Join(cache, "recall-tests", "ts-sdk")
	modules := filepath.Join(prefix, "node_modules")
	if _, err := os.Stat(filepath.Join(modules, "@modelcontextprotocol", "sdk", "package.json")); err == nil {
		return modules
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("no npm on PATH to install the TypeScript SDK with")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", prefix, "--no-audit", "--no-fund", "--silent", "@modelcontextprotocol/sdk@1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("could not install the TypeScript SDK (offline?): %v\n%s", err, out)
	}
	return modules
}

// originalEnv is name's value in the environment the tests started with.
func originalEnv(name string) string {
	for _, kv := range buildEnv {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}

// tsClientRun is what testdata/mcp-client.mjs saw.
type tsClientRun struct {
	Tools []string `json:"tools"`
	Pages []struct {
		Name       string `json:"name"`
		Structured int    `json:"structured"`
		Text       int    `json:"text"`
	} `json:"pages"`
	SearchSessions []string `json:"searchSessions"`
	SearchTotal    *int     `json:"searchTotal"`
	ShowLines      []string `json:"showLines"`
	ShowTotal      int      `json:"showTotal"`
	Errors         []struct {
		Name string `json:"name"`
		Text string `json:"text"`
	} `json:"errors"`
}

// The TypeScript SDK's client, sending numbers as strings, pages through
// a search and a whole session at the smallest budget: every page within
// it, every session and message once, as many sessions as --count says,
// and a bad argument named by its parameter.
func TestMCPWithTheTypeScriptClient(t *testing.T) {
	sdk := tsSDK(t)
	bin, src := recallBinary(t), copyFixtures(t)
	index := filepath.Join(t.TempDir(), "index")
	env := hermeticEnv(t)
	cli := func(args ...string) string {
		cmd := exec.Command(bin, append(args, "--index-dir", index, "--source", src)...)
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("recall %v: %v", args, err)
		}
		return string(out)
	}
	cli("index")
	count, err := strconv.Atoi(strings.TrimSpace(cli("--no-update", "-c", "jwt")))
	if err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command("node", filepath.Join("testdata", "mcp-client.mjs"), sdk, bin, "mcp", "--index-dir", index, "--source", src, "--no-update")
	cmd.Env = env
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v", err)
	}
	var run tsClientRun
	if err := json.Unmarshal(out, &run); err != nil {
		t.Fatalf("client output: %v: %s", err, out)
	}

	if !slices.Equal(run.Tools, []string{"search", "sessions", "show"}) {
		t.Errorf("tools %v", run.Tools)
	}
	const budget = 1000 * 3 // max_tokens 1000, 3 bytes a token, both forms together
	for _, p := range run.Pages {
		if p.Structured+p.Text > budget {
			t.Errorf("%s page of %d structured and %d text bytes, over max_tokens 1000", p.Name, p.Structured, p.Text)
		}
	}
	if len(run.SearchSessions) != count || len(unique(run.SearchSessions)) != count {
		t.Errorf("search pages gave %v; recall -c counts %d sessions", run.SearchSessions, count)
	}
	if run.SearchTotal == nil || *run.SearchTotal != count {
		t.Errorf("the last search page's total is %v; recall -c counts %d", run.SearchTotal, count)
	}
	if run.ShowTotal == 0 || len(run.ShowLines) != run.ShowTotal || len(unique(run.ShowLines)) != run.ShowTotal {
		t.Errorf("show pages gave %d messages (%d distinct) of %d", len(run.ShowLines), len(unique(run.ShowLines)), run.ShowTotal)
	}
	if len(run.Errors) != 1 || run.Errors[0].Text != "limit -1: must not be negative" {
		t.Errorf("errors %+v, want the one of limit -1", run.Errors)
	}
}

func unique(xs []string) map[string]bool {
	set := map[string]bool{}
	for _, x := range xs {
		set[x] = true
	}
	return set
}
