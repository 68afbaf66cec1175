package aider

import (
	"slices"
	"strings"
	"testing"
)

// architectHistory is a session in architect mode: the architect's plan,
// then the same plan as the prompt Aider hands its editor (and writes
// again as a prompt), the editor's edit, then a prompt of the person's
// that starts as the plan does.
var architectHistory = strings.Join([]string{
	"",
	"# aider chat started at 2026-03-02 09:15:04",
	"",
	"> /home/dev/.local/bin/aider --architect --model sonnet --editor-model haiku  ",
	"> Aider v0.86.1  ",
	"> Main model: anthropic/claude-sonnet-4 with architect edit format  ",
	"> Editor model: anthropic/claude-haiku-4-5 with editor-diff edit format  ",
	"> Git repo: .git with 12 files  ",
	"",
	"#### split the config loader into parsing and validation  ",
	"",
	"Here is the plan for the config loader:",
	"",
	"1. Move `parse_config` into `config/parse.py`, unchanged.",
	"2. Move the checks into `config/validate.py` as `validate(cfg)`.",
	"3. Keep `load_config` in `config/__init__.py`, calling both.",
	"",
	"> Tokens: 2.1k sent, 180 received. Cost: $0.0090 message, $0.0090 session.  ",
	"",
	"#### Here is the plan for the config loader:  ",
	"####   ",
	"#### 1. Move `parse_config` into `config/parse.py`, unchanged.  ",
	"#### 2. Move the checks into `config/validate.py` as `validate(cfg)`.  ",
	"#### 3. Keep `load_config` in `config/__init__.py`, calling both.  ",
	"",
	"config/validate.py",
	"```python",
	"<<<<<<< SEARCH",
	"=======",
	"def validate(cfg):",
	"    return cfg",
	">>>>>>> REPLACE",
	"```",
	"",
	"> Tokens: 1.4k sent, 95 received. Cost: $0.0010 message, $0.0100 session.  ",
	"> Applied edit to config/validate.py  ",
	"> Commit 4f5e6d7 refactor: Split config validation out of the loader  ",
	"",
	"#### Here is the plan for the config loader: keep it, and also add a test  ",
	"",
	"Added `tests/test_config.py` covering both halves.",
	"",
	"> Tokens: 2.4k sent, 60 received. Cost: $0.0080 message, $0.0180 session.  ",
	"",
}, "\n")

// TestArchitectPlanHandedToTheEditor: the prompt Aider writes when it
// hands the architect's reply to its editor is a copy of that reply, left
// out, whatever offsets the history is read at (the reply before the
// read is found again from the session's header); a prompt of the
// person's is kept.
func TestArchitectPlanHandedToTheEditor(t *testing.T) {
	whole := readAll(t, writeTemp(t, architectHistory))
	var got []string
	for _, r := range whole.Rows {
		got = append(got, r.Role+": "+strings.SplitN(r.Text, "\n", 2)[0])
	}
	want := []string{
		"user: split the config loader into parsing and validation",
		"assistant: Here is the plan for the config loader:",
		"assistant: config/validate.py",
		"tool: Edit: config/validate.py",
		"tool: Commit: 4f5e6d7 refactor: Split config validation out of the loader",
		"user: Here is the plan for the config loader: keep it, and also add a test",
		"assistant: Added `tests/test_config.py` covering both halves.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	data := []byte(architectHistory)
	for cut := 1; cut < len(data); cut++ {
		if data[cut-1] != '\n' {
			continue
		}
		rows, _, _ := readGrowing(t, data, []int{cut})
		if len(rows) != len(whole.Rows) {
			t.Fatalf("read in two at byte %d: %d rows, want %d", cut, len(rows), len(whole.Rows))
		}
	}
}
