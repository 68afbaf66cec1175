package evalcorpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// locomoTiny is a hand-written file of LoCoMo's shape: two conversations,
// sessions out of order and one empty, a shared photo, evidence written
// the odd ways the real file has ("D2:2; D3:1", "D:3:2"), a question
// without evidence and an adversarial one.
const locomoTiny = "testdata/locomo-tiny.json"

func readTiny(t *testing.T) []LoCoMoConversation {
	t.Helper()
	convs, err := ReadLoCoMo(locomoTiny)
	if err != nil {
		t.Fatal(err)
	}
	return convs
}

func TestParseLoCoMo(t *testing.T) {
	convs := readTiny(t)
	if len(convs) != 2 || convs[0].ID != "conv-a" || convs[1].ID != "conv-b" {
		t.Fatalf("conversations %v, want conv-a and conv-b", convs)
	}
	a := convs[0]
	if a.SpeakerA != "Ada" || a.SpeakerB != "Bo" {
		t.Errorf("speakers %q, %q", a.SpeakerA, a.SpeakerB)
	}
	var nums []int
	for _, s := range a.Sessions {
		nums = append(nums, s.Num)
	}
	if !slices.Equal(nums, []int{1, 2, 3}) {
		t.Errorf("sessions %v, want 1 2 3 (ordered; the empty session 4 left out)", nums)
	}
	if want := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC); !a.Sessions[0].At.Equal(want) {
		t.Errorf("session 1 at %v, want %v", a.Sessions[0].At, want)
	}
	if want := time.Date(2023, 9, 13, 0, 9, 0, 0, time.UTC); !a.Sessions[2].At.Equal(want) {
		t.Errorf("session 3 at %v, want %v (12:09 am is just after midnight)", a.Sessions[2].At, want)
	}
	if got := a.Sessions[1].Turns[0].Caption; got != "a photo of a blue ceramic bowl on a table" {
		t.Errorf("caption %q", got)
	}
	wantSessions := [][]int{{1}, {2}, {2, 3}, {3}, nil, {1}}
	for i, q := range a.Questions {
		if !slices.Equal(q.Sessions, wantSessions[i]) {
			t.Errorf("question %q: sessions %v, want %v", q.Question, q.Sessions, wantSessions[i])
		}
	}
	if q := a.Questions[1]; q.Answer != "2023" || q.Category != 2 {
		t.Errorf("numeric answer %q, category %d", q.Answer, q.Category)
	}
	if q := a.Questions[5]; q.Answer != "Oscar" || q.Category != 5 {
		t.Errorf("adversarial answer %q, category %d", q.Answer, q.Category)
	}
	if want := time.Date(2023, 9, 13, 0, 10, 0, 0, time.UTC); !a.Last().Equal(want) {
		t.Errorf("last turn at %v, want %v", a.Last(), want)
	}
}

func TestParseLoCoMoErrors(t *testing.T) {
	session := `"session_1_date_time": "1:56 pm on 8 May, 2023", "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]`
	conv := func(conversation, qa string) string {
		return `[{"sample_id": "c", "conversation": {"speaker_a": "A", "speaker_b": "B", ` + conversation + `}, "qa": [` + qa + `]}]`
	}
	tests := []struct{ name, data, want string }{
		{"not json", `{`, "parse LoCoMo"},
		{"empty", `[]`, "no conversations"},
		{"no speakers", `[{"sample_id": "c", "conversation": {` + session + `}}]`, "speaker_a"},
		{"no sessions", conv(`"x": 1`, ``), "no sessions"},
		{"bad date", conv(`"session_1_date_time": "8 May 2023", "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]`, ``), "date_time"},
		{"stranger", conv(`"session_1_date_time": "1:56 pm on 8 May, 2023", "session_1": [{"speaker": "Z", "dia_id": "D1:1", "text": "hi"}]`, ``), `speaker "Z"`},
		{"missing session", conv(session, `{"question": "q?", "answer": "a", "evidence": ["D2:1"], "category": 4}`), "session 2"},
		{"bad category", conv(session, `{"question": "q?", "answer": "a", "evidence": ["D1:1"], "category": 7}`), "category 7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ParseLoCoMo([]byte(tt.data)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

// TestLoCoMoTranscripts checks the records a session becomes: typed
// prompts for speaker_a, assistant text for speaker_b, one per turn, a
// minute apart, the photo's caption appended, ids that do not change.
func TestLoCoMoTranscripts(t *testing.T) {
	a := readTiny(t)[0]
	for _, names := range []bool{false, true} {
		trs := a.Transcripts(names)
		if len(trs) != 3 {
			t.Fatalf("%d transcripts, want 3", len(trs))
		}
		s := trs[1] // session 2: Bo (photo), Ada, Ada
		if s.ID != LoCoMoSessionID("conv-a", 2) || s.Cwd != LoCoMoCwd("conv-a") {
			t.Errorf("session 2: id %s, cwd %s", s.ID, s.Cwd)
		}
		data, err := s.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		again, _ := s.Marshal()
		if !bytes.Equal(data, again) {
			t.Error("marshalling twice gave different bytes")
		}
		var recs []map[string]any
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var rec map[string]any
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatal(err)
			}
			recs = append(recs, rec)
		}
		if len(recs) != 3 {
			t.Fatalf("%d records, want 3 (two turns in a row by Ada stay two)", len(recs))
		}
		wantTypes := []string{"assistant", "user", "user"}
		wantTimes := []string{"2023-06-03T09:05:00.000Z", "2023-06-03T09:06:00.000Z", "2023-06-03T09:07:00.000Z"}
		for i, rec := range recs {
			if rec["type"] != wantTypes[i] || rec["timestamp"] != wantTimes[i] || rec["sessionId"] != s.ID ||
				rec["entrypoint"] != "cli" || rec["cwd"] != "/home/dev/locomo/conv-a" {
				t.Errorf("record %d: %v", i, rec)
			}
			if i > 0 && rec["parentUuid"] != recs[i-1]["uuid"] {
				t.Errorf("record %d: parentUuid %v, want %v", i, rec["parentUuid"], recs[i-1]["uuid"])
			}
		}
		reply := recs[0]["message"].(map[string]any)
		block := reply["content"].([]any)[0].(map[string]any)
		want := "Morning Ada! I finally finished the pottery class, look at this bowl. [shares a photo: a photo of a blue ceramic bowl on a table]"
		if names {
			want = "Bo: " + want
		}
		if block["type"] != "text" || block["text"] != want || reply["role"] != "assistant" {
			t.Errorf("names %v: reply %v, want text %q", names, reply, want)
		}
		prompt := recs[1]["message"].(map[string]any)
		want = "That glaze is gorgeous. I have been training for the marathon in Lisbon."
		if names {
			want = "Ada: " + want
		}
		if prompt["content"] != want || prompt["role"] != "user" {
			t.Errorf("names %v: prompt %v, want content %q", names, prompt, want)
		}
	}
	if LoCoMoSessionID("conv-a", 1) == LoCoMoSessionID("conv-b", 1) {
		t.Error("session 1 of two conversations share an id")
	}
}

func TestEvaluateLoCoMo(t *testing.T) {
	convs := readTiny(t)
	for name, opt := range map[string]LoCoMoOptions{
		"conversation": {SpeakerNames: true},
		"joint":        {Joint: true, Now: time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)},
	} {
		t.Run(name, func(t *testing.T) {
			rep, err := EvaluateLoCoMo(t.TempDir(), convs, opt)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Conversations != 2 || rep.Sessions != 4 || rep.Turns != 9 || rep.NoEvidence != 1 || len(rep.Outcomes) != 6 {
				t.Fatalf("%d conversations, %d sessions, %d turns, %d without evidence, %d outcomes", rep.Conversations, rep.Sessions, rep.Turns, rep.NoEvidence, len(rep.Outcomes))
			}
			// Every question's rare words sit only in its evidence.
			for _, o := range rep.Outcomes {
				if o.Rank != 1 || o.Err != "" {
					t.Errorf("%s %q: rank %d (above: %v), error %q; want first", o.Conversation, o.Question.Question, o.Rank, o.Above, o.Err)
				}
			}
			m, errs := rep.Metrics(0)
			if m.Queries != 6 || m.Hit1 != 1 || m.Hit5 != 1 || m.MRR != 1 || errs != 0 {
				t.Errorf("all: %+v, %d errors", m, errs)
			}
			if m, _ := rep.Metrics(-5); m.Queries != 5 {
				t.Errorf("all but 5: %d questions, want 5", m.Queries)
			}
			out := rep.Format(true)
			for _, want := range []string{"1 multi-hop", "5 adversarial", "all but 5", "6 questions with evidence", "1 without (left out)", opt.Describe()} {
				if !strings.Contains(out, want) {
					t.Errorf("report lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

// TestLoCoMoFile runs the real evaluation when RECALL_LOCOMO names
// snap-research/locomo's data/locomo10.json; the file is not in the
// repository, so the test skips without it.
func TestLoCoMoFile(t *testing.T) {
	path := os.Getenv("RECALL_LOCOMO")
	if path == "" {
		t.Skip("RECALL_LOCOMO is not set (the path of locomo10.json)")
	}
	convs, err := ReadLoCoMo(path)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := EvaluateLoCoMo(t.TempDir(), convs, LoCoMoOptions{SpeakerNames: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Conversations != 10 || rep.Sessions != 272 || len(rep.Outcomes)+rep.NoEvidence != 1986 {
		t.Errorf("%d conversations, %d sessions, %d questions; want locomo10.json's 10, 272 and 1986",
			rep.Conversations, rep.Sessions, len(rep.Outcomes)+rep.NoEvidence)
	}
	m, errs := rep.Metrics(0)
	t.Logf("hit@1 %.3f hit@5 %.3f MRR %.3f over %d questions, %d refused", m.Hit1, m.Hit5, m.MRR, m.Queries, errs)
	if m.Hit5 < m.Hit1 || m.Hit1 == 0 {
		t.Errorf("implausible figures: %+v", m)
	}
}
