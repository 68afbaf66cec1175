package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/indexer"
	"github.com/recall-dev/recall/store"
)

type statsCmd struct {
	JSON bool `help:"Print the statistics as one JSON object."`
}

func (c *statsCmd) Run(g *Globals) error {
	cfg, err := g.config()
	if err != nil {
		return err
	}
	st, err := store.Stats(cfg.IndexDir)
	if errors.Is(err, store.ErrNoIndex) {
		return fmt.Errorf("no index in %s yet: run `recall index`", cfg.IndexDir)
	}
	if err != nil {
		return err
	}
	if c.JSON {
		enc := json.NewEncoder(g.env.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	return writeStats(g.env.stdout, st)
}

func writeStats(w io.Writer, st *store.IndexStats) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "index\t%s (format v%d, text rules v%d, %s on disk)\n", st.Dir, st.FormatVersion, st.Feature, indexer.HumanBytes(st.DiskBytes))
	fmt.Fprintf(tw, "updated\t%s\n", st.Updated.Local().Format("2006-01-02 15:04:05"))
	fmt.Fprintf(tw, "rows\t%d in %d blocks (%s of message text)\n", st.Rows, st.Blocks, indexer.HumanBytes(st.TextBytes))
	fmt.Fprintf(tw, "term index\t%d segments covering %d of %d blocks\n", st.TermSegments, st.TermBlocks, st.Blocks)
	if st.TermIndex != "" {
		fmt.Fprintf(tw, "  not used\tsearches read every row: %s\n", st.TermIndex)
	}
	if st.HiddenRows > 0 {
		fmt.Fprintf(tw, "hidden\t%d rows of replaced transcripts (removed at the next compaction)\n", st.HiddenRows)
	}
	fmt.Fprintf(tw, "sessions\t%d in %d projects\n", st.Sessions, st.Projects)
	fmt.Fprintf(tw, "transcripts\t%s\n", kindCounts(st.Transcripts))
	fmt.Fprintf(tw, "archive\t%d transcripts deleted from disk; their %d rows live only in the index\n", st.GoneFiles, st.GoneRows)
	fmt.Fprintln(tw, "excluded\t")
	for _, r := range filter.Reasons() {
		if n := st.Excluded[r.String()]; n > 0 {
			fmt.Fprintf(tw, "  %s\t%d\t%s\n", r, n, r.Explanation())
		}
	}
	return tw.Flush()
}

func kindCounts(kinds map[string]int) string {
	var parts []string
	for _, k := range []string{store.KindMain, store.KindSubagent, store.KindAgentOld} {
		if n := kinds[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, map[string]string{
				store.KindMain: "main", store.KindSubagent: "subagent", store.KindAgentOld: "old-layout agent"}[k]))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
