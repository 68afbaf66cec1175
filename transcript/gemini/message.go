package gemini

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/maphash"
	"slices"
	"strings"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/transcript"
	"github.com/recall-dev/recall/transcript/jsonscan"
)

// kind is what a version of a message makes.
type kind uint8

const (
	kindRows  kind = iota // a prompt or a reply and its tool calls
	kindNoise             // the CLI's notice, a tool's result, injected context
	kindNone              // a message of a type recall does not know: nothing, counted as nothing
)

// version is what one record of a message says: a message written again
// (its tokens counted, its tool calls scheduled, run, answered) is a new
// version of it, which replaces the one before.
type version struct {
	kind     kind
	role     string // user or assistant
	text     string
	tools    []toolCall
	snapshot bool // a compression's state snapshot
	opener   bool // the session context a chat opens with (sessionContext)
}

// toolCall is one entry of a gemini message's toolCalls.
type toolCall struct {
	name string
	args json.RawMessage // a JSON object
	ts   string
}

// versionOf reads a message record: what it makes by its type.
func versionOf(r *rawRecord, ts string) version {
	switch str(r.Type) {
	case "user":
		return userVersion(r)
	case "gemini":
		text, _ := partsText(r.Content)
		tools := toolCalls(r.ToolCalls, ts)
		if len(tools) == 0 && isHarnessReply(strings.TrimSpace(text)) {
			return version{kind: kindNoise}
		}
		return version{kind: kindRows, role: "assistant", text: text, tools: tools}
	case "info", "error", "warning":
		return version{kind: kindNoise}
	}
	return version{kind: kindNone}
}

// isHarnessReply reports whether text is a model turn Gemini CLI writes
// itself after the context it injects: after a compression's state
// snapshot (chatCompressionService.ts) and, in older versions, after the
// environment context.
func isHarnessReply(text string) bool {
	return text == "Got it. Thanks for the additional context!" || text == "Got it. Thanks for the context!"
}

// harnessPrefixes start user turns Gemini CLI writes itself: the turn it
// sends when it judges that the model should go on speaking (client.ts,
// after its next-speaker check; versions that record displayContent
// show a tool's result for it, older ones nothing but this), a tool's
// result some versions recorded as text, as partToString renders a
// functionResponse part, and the nudge a subagent gets when it stops
// calling tools before its complete_task, runs out of turns or out of
// time (agents/local-executor.ts, getFinalWarningMessage).
//
// Since 0.44 Gemini CLI records the turns it adds to the history itself
// (GeminiChat.addHistory, recordSyntheticMessage) as user messages too:
// the editor's context in IDE mode, whole or its changes (client.ts),
// the switch out of Plan Mode (approvalModeUtils.ts), the folders a
// /directory add brought in (environmentContext.ts), and a shell-mode
// command with its output (useExecutionLifecycle.ts; Claude Code's bang
// mode is noise too).
var harnessPrefixes = [...]string{
	"System: Please continue.",
	"[Function Response: ",
	"You have stopped calling tools without finishing.",
	"You have exceeded the maximum number of turns.",
	"You have exceeded the time limit.",
	"Here is the user's editor context as a JSON object. This is for your information only.",
	"Here is a summary of changes in the user's editor context, in JSON format. This is for your information only.",
	"User has manually exited Plan Mode. Switching to ",
	"Plan approved. Switching to ",
	"- **Workspace Directories:**\n",
	"I ran the following shell command:\n```sh\n",
}

// steeringOpen and steeringClose wrap what a person typed while Gemini
// CLI worked, as it hands it to the model (fastAckHelper.ts,
// buildUserSteeringHintPrompt: "User steering update:", the text in
// <user_input> tags, then the CLI's instruction to the model), on its
// own or before the tool results it sends back.
const (
	steeringOpen  = "User steering update:\n<user_input>\n"
	steeringClose = "\n</user_input>"
)

// steeringHint is the person's words of a steering update, false when
// text (trimmed) is none.
func steeringHint(text string) (string, bool) {
	rest, ok := strings.CutPrefix(text, steeringOpen)
	if !ok {
		return "", false
	}
	hint, _, ok := strings.Cut(rest, steeringClose)
	return hint, ok
}

// harnessPrompt reports whether a user turn's text (trimmed) is one of
// harnessPrefixes'.
func harnessPrompt(text string) bool {
	if text == continueTurn {
		return true
	}
	for _, p := range harnessPrefixes {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

// continueTurn is the whole of the turn Gemini CLI sends after its
// next-speaker check judges that the model should go on (client.ts),
// and of the one it ends a history with that ends on the model's
// (historyHardening.ts); recorded with the person's prompt as its
// displayContent, it was that prompt indexed twice. A person's own
// "Please continue." says nothing to search for either.
const continueTurn = "Please continue."

// stateSnapshot marks the summary a compression puts in the history as a
// user turn: the model's, written for itself, not the person's.
const stateSnapshot = "<state_snapshot>"

// userVersion is a user message's prompt: what the person typed, which
// displayContent holds when it differs from what was sent (an
// @-reference expanded into a file's contents), else content's text. A
// message holding a tool's result (a functionResponse part, recorded as a
// user turn) is noise, and so is one left with no text once the context
// the harness adds is taken out. So is one whose displayContent is a
// tool's result: the CLI's own turn after it ("System: Please
// continue."), sent as the user's while the screen showed the result.
func userVersion(r *rawRecord) version {
	text, toolResult := partsText(r.Content)
	if hint, ok := steeringHint(strings.TrimSpace(text)); ok {
		if strings.TrimSpace(hint) == "" {
			return version{kind: kindNoise}
		}
		return version{kind: kindRows, role: "user", text: hint}
	}
	if toolResult {
		return version{kind: kindNoise}
	}
	if harnessPrompt(strings.TrimSpace(text)) {
		// The CLI's own turn, whatever it shows for it: a retry after a
		// bad reply shows the prompt it retries, indexed already.
		return version{kind: kindNoise}
	}
	shown, shownResult := partsText(r.DisplayContent)
	if shownResult && strings.TrimSpace(shown) == "" {
		return version{kind: kindNoise}
	}
	if strings.TrimSpace(shown) != "" {
		text = shown
	}
	if t := strings.TrimSpace(text); t == "" || harnessPrompt(t) {
		return version{kind: kindNoise, opener: t == "" && bytes.Contains(r.Content, []byte(sessionContext))}
	}
	if strings.Contains(text, stateSnapshot) {
		return version{kind: kindNoise, snapshot: true}
	}
	return version{kind: kindRows, role: "user", text: text}
}

// partsText is the text of a content value (a string, a part, or an
// array of strings and parts), joined as Gemini CLI joins it for show:
// text parts only, thought parts and the context the harness injects
// (<session_context>, <hook_context>) left out. toolResult reports a
// functionResponse part.
func partsText(raw json.RawMessage) (text string, toolResult bool) {
	var t texts
	add := func(raw json.RawMessage) {
		switch {
		case isString(raw):
			t.add(str(raw))
		case isObject(raw):
			type textPart struct {
				Text             json.RawMessage `json:"text"`
				Thought          json.RawMessage `json:"thought"`
				FunctionResponse json.RawMessage `json:"functionResponse"`
			}
			var part textPart
			var out [3][]byte
			if fieldsOf(raw, partFields, out[:]) {
				part = textPart{Text: out[0], Thought: out[1], FunctionResponse: out[2]}
			} else if !unmarshal(raw, &part) {
				return
			}
			if isObject(part.FunctionResponse) {
				toolResult = true
			}
			if string(part.Thought) != "true" {
				t.add(str(part.Text))
			}
		}
	}
	if isArray(raw) {
		elements(raw, func(part []byte) { add(part) })
	} else {
		add(raw)
	}
	return t.String(), toolResult
}

// texts joins the text parts of a content value, leaving out those the
// harness injected; one part is taken as it is, not copied.
type texts struct {
	first string
	n     int
	sb    strings.Builder
}

func (t *texts) add(s string) {
	if isInjected(s) || s == "" {
		return
	}
	switch t.n++; t.n {
	case 1:
		t.first = s
	case 2:
		t.sb.Grow(len(t.first) + len(s))
		t.sb.WriteString(t.first)
		t.sb.WriteString(s)
	default:
		t.sb.WriteString(s)
	}
}

func (t *texts) String() string {
	if t.n <= 1 {
		return t.first
	}
	return t.sb.String()
}

// partFields and callFields are the members partsText and toolCalls
// read.
var (
	partFields = []string{"text", "thought", "functionResponse"}
	callFields = []string{"name", "args", "timestamp"}
)

// sessionContext opens the context Gemini CLI puts before a chat's
// first prompt (environmentContext.ts).
const sessionContext = "<session_context>"

// isInjected reports whether a text part is context the harness
// injected.
func isInjected(s string) bool {
	t := strings.TrimLeft(s, " \t\r\n")
	return strings.HasPrefix(t, sessionContext) || strings.HasPrefix(t, "<hook_context>")
}

// toolCalls reads a gemini message's toolCalls. An entry that is not an
// object keeps its place (so later entries keep their blocks) and makes
// no row.
func toolCalls(raw json.RawMessage, ts string) []toolCall {
	if !isArray(raw) {
		return nil
	}
	var out []toolCall
	elementsAt(raw, func(raw []byte, i int) int {
		k := len(out)
		out = append(out, toolCall{})
		type call struct {
			Name      json.RawMessage `json:"name"`
			Args      json.RawMessage `json:"args"`
			Timestamp json.RawMessage `json:"timestamp"`
		}
		var c call
		if raw[i] != '{' {
			return jsonscan.SkipValue(raw, i)
		}
		var f [3][]byte
		end, ok := fieldsAt(raw, i, callFields, f[:])
		if ok {
			c = call{Name: f[0], Args: f[1], Timestamp: f[2]}
		} else if end = jsonscan.SkipValue(raw, i); end < 0 || !unmarshal(raw[i:end], &c) {
			return end
		}
		out[k] = toolCall{name: str(c.Name), args: withAliases(c.Args), ts: stamp(c.Timestamp)}
		if out[k].ts == "" {
			out[k].ts = ts
		}
		return end
	})
	return out
}

// withAliases is a tool call's args (a JSON object; "{}" for any other
// value) with a member added under recall's name for each name Gemini
// CLI's tools give a path that the args hold without recall's, so that
// the row names the file or folder (transcript's tool row reads
// file_path and path): read_file took absolute_path before file_path;
// list_directory, glob, grep_search and run_shell_command take dir_path.
func withAliases(args json.RawMessage) json.RawMessage {
	// aliases: from argNames[i] to argNames[i+1], for even i.
	if !isObject(args) {
		return json.RawMessage("{}")
	}
	m, ok := argMembers(args)
	if !ok {
		all := map[string]json.RawMessage{}
		if !unmarshal(args, &all) {
			return args
		}
		for k, name := range argNames {
			m[k] = all[name]
		}
	}
	out := args
	for i := 0; i < len(argNames); i += 2 {
		v, to := m[i], argNames[i+1]
		if ok, has := v != nil, m[i+1] != nil; !ok || has || !isString(v) {
			continue
		}
		if len(out) == len(args) {
			out = slices.Clone(args)
		}
		body := bytes.TrimSpace(out[:len(out)-1]) // the object without its '}'
		if len(body) > 1 {
			body = append(body, ',')
		}
		key, _ := json.Marshal(to)
		body = append(append(append(body, key...), ':'), v...)
		out = append(body, '}')
	}
	return out
}

// argNames are the members of a tool call's args withAliases reads:
// each alias, then recall's name for it.
var argNames = [...]string{"absolute_path", "file_path", "dir_path", "path"}

// argMembers is the members of args (a validated object) named
// argNames, nil for those absent, as json.Unmarshal into a map gives
// them (the last of a repeated key); ok is false when a key is escaped,
// which the map holds unescaped.
func argMembers(args []byte) (found [len(argNames)]json.RawMessage, ok bool) {
	w := jsonscan.WalkObject(args, 0)
	for {
		key, val, more := w.Next()
		if !more {
			return found, !w.Failed()
		}
		if bytes.IndexByte(key, '\\') >= 0 {
			return found, false
		}
		for k, name := range argNames {
			if string(key) == name {
				found[k] = val
			}
		}
	}
}

// sig is a version's signature, one hash per block: [0] its kind, role
// and text, [1+i] its i-th tool call. Two versions with equal signatures
// make the same rows.
func (v *version) sig() []uint64 {
	switch v.kind {
	case kindNoise:
		return []uint64{hashParts("noise", "", "", nil)}
	case kindNone:
		return []uint64{hashParts("none", "", "", nil)}
	}
	out := make([]uint64, 1, 1+len(v.tools))
	out[0] = hashParts("text", v.role, v.text, nil)
	for _, t := range v.tools {
		out = append(out, hashParts("tool", t.name, "", t.args))
	}
	return out
}

// sigSeed seeds the signatures' hashes: they are compared only within
// one read.
var sigSeed = maphash.MakeSeed()

// hashParts hashes the parts of a block's signature, each followed by
// a 0: its kind, its role or tool name, then its text or args.
func hashParts(a, b, text string, args []byte) uint64 {
	var h maphash.Hash
	h.SetSeed(sigSeed)
	h.WriteString(a)
	h.WriteByte(0)
	h.WriteString(b)
	h.WriteByte(0)
	h.WriteString(text)
	h.Write(args)
	h.WriteByte(0)
	return h.Sum64()
}

// emit makes the rows of v's blocks that want says, counting a noise
// version's drop.
func emit(b *transcript.Builder, m transcript.Meta, v *version, want func(block int) bool) {
	switch v.kind {
	case kindNoise:
		if want(0) {
			b.Drop(filter.Noise)
		}
		return
	case kindNone:
		return
	}
	if want(0) && v.text != "" {
		m.Block = 0
		b.Text(m, v.role, v.text)
	}
	for i, t := range v.tools {
		if want(i + 1) {
			tm := m
			tm.Block, tm.Timestamp = i+1, t.ts
			b.Tool(tm, t.name, t.args)
		}
	}
}

// message reads a message record. Gemini CLI writes a message again
// whole, with the same id, each time it changes (appendRecord in
// pushMessage): its tokens, a tool call added, a tool call's status
// and result. It only ever changes its last message, so within one read
// the message seen last has its rows at the end, and its new version
// replaces them: the rows a new version adds (a new tool call) are
// appended, and a version that changes a row (its text) cuts the
// message's rows and makes them again. A version equal to the one
// before makes nothing (a copy). A message seen earlier in the read
// whose rows are not at the end gets the rows of its blocks that changed
// appended (its earlier rows stay). A message first read by an earlier
// read makes its rows again: those unchanged have the keys of the rows
// indexed then and are left out as copies, a changed one is added.
func (p *parser) message(b *transcript.Builder, r *rawRecord, n int) {
	id := str(r.ID)
	ts := stamp(r.Timestamp)
	if ts == "" {
		ts = p.lastTS
	}
	p.lastTS = ts
	v := versionOf(r, ts)
	if p.background && v.kind == kindRows {
		v = version{kind: kindNoise} // a run Gemini CLI makes for itself (parser.background)
	}
	if p.opening && v.kind == kindRows {
		p.opening = false
		p.subagentTask(&v)
	}
	sig := v.sig()
	m := p.meta(p.messageUUID(id, n), ts, n)
	st := p.msgs.get(id)
	rows := len(b.Rows())
	switch {
	case st == nil && p.replayed(&v, sig):
		st = p.msgs.add(id, rows)
		b.Drop(filter.Copy)
		p.tail = st
	case st == nil:
		st = p.msgs.add(id, rows)
		emit(b, m, &v, all)
		p.tail = st
	case slices.Equal(st.sig, sig):
		b.Drop(filter.Copy)
		return
	case st == p.tail && st.end == rows && extends(st.sig, sig):
		from := len(st.sig)
		emit(b, m, &v, func(block int) bool { return block >= from })
	case st == p.tail && st.end == rows:
		b.Cut(st.start)
		emit(b, m, &v, all)
	default:
		old := st.sig
		st.start = rows
		emit(b, m, &v, func(block int) bool { return block >= len(old) || old[block] != sig[block] })
	}
	st.sig, st.end = sig, len(b.Rows())
	p.noteText(&v, sig)
}

// A compression rewrites the model's history (chatCompressionService.ts,
// GeminiChat.setHistory): its state snapshot as a user turn, the model's
// acknowledgement, then the turns it keeps, which Gemini CLI records
// again as new messages with new ids, and last a checkpoint ($set with
// messages). Those records are copies of messages already in the file,
// but their ids are new, so their keys cannot tell them: after a state
// snapshot, a new message with no tool calls whose text is a message's
// the read saw is left out as a copy, until the checkpoint or the first
// new message with a text the read has not seen (the copies come in one
// run; a compression cut short by a crash writes no checkpoint). The
// texts are remembered by hash, for at most maxTracked messages.

//
// Gemini CLI also records a session's whole history again, mid-session:
// the session context the chat opened with, then every message (tool
// calls too) with new ids and the same time, then a checkpoint listing
// only those (a real 0.45 chat). After a session context that comes
// once messages were read, a message is a copy when its text, or all of
// it with its tool calls, is one the read saw.

// replayed reports whether v, a new message, is a copy of one the read
// saw, written again by a compression or a history recorded anew.
func (p *parser) replayed(v *version, sig []uint64) bool {
	if v.snapshot || v.opener && len(p.texts) > 0 {
		p.replay = true
		return false
	}
	if !p.replay || v.kind != kindRows {
		return false
	}
	key := sig[0]
	if len(v.tools) > 0 {
		key = wholeSig(sig)
	} else if v.text == "" {
		return false
	}
	_, seen := p.texts[key]
	p.replay = seen
	return seen
}

// noteText remembers the text of a message's version, and the whole of
// one with tool calls.
func (p *parser) noteText(v *version, sig []uint64) {
	if v.kind != kindRows || len(p.texts) >= maxTracked {
		return
	}
	if v.text != "" {
		p.texts[sig[0]] = struct{}{}
	}
	if len(v.tools) > 0 {
		p.texts[wholeSig(sig)] = struct{}{}
	}
}

// wholeSig hashes a signature's blocks together.
func wholeSig(sig []uint64) uint64 {
	var h maphash.Hash
	h.SetSeed(sigSeed)
	h.WriteString("whole\x00")
	for _, x := range sig {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], x)
		h.Write(b[:])
	}
	return h.Sum64()
}

// all wants every block.
func all(int) bool { return true }

// extends reports whether the version signed next only adds blocks to
// the one signed prev (a tool call added).
func extends(prev, next []uint64) bool {
	return len(next) > len(prev) && slices.Equal(prev, next[:len(prev)])
}

// rewind reads a $rewindTo: the message id and every one after it are
// no longer part of the conversation, and the rows this read made for
// them are cut. Rows of rewound messages that an earlier read indexed
// stay: a read has only its own rows to cut. A message this read did
// not see was written before it, so every message of the read comes
// after it (Gemini CLI's loader, too, empties the history for an id it
// does not know); one it saw but no longer tracks (the read's first
// messages, past maxTracked) came before those it tracks, whose rows
// are cut.
func (p *parser) rewind(b *transcript.Builder, id string) {
	n := 0
	st := p.msgs.get(id)
	switch {
	case st != nil:
		n = st.first
	case p.msgs.evicted:
		n = p.msgs.evictedFirst
	}
	b.Cut(n)
	if st != nil {
		p.msgs.dropFrom(st.seq)
	} else {
		p.msgs.dropFrom(0)
	}
	p.tail = nil // the message seen last is at or after the one rewound to
}

// msgState is what a read knows of a message it saw.
type msgState struct {
	seq        int      // its place among the messages the read saw first
	first      int      // the rows the read had made before it was first seen
	start, end int      // the rows its last version made (contiguous for the last message)
	sig        []uint64 // its last version's signature
}

// maxTracked bounds the messages a read remembers: a message is written
// again soon after it is first written, and a rewind goes back a few
// prompts; the oldest are forgotten past it, so that a read's memory does
// not grow with a file of millions of short records.
const maxTracked = 1 << 15

// tracker is the messages a read saw, in the order it first saw them.
type tracker struct {
	byID         map[string]*msgState
	order        []string // ids by seq; order[head:] are tracked
	head         int
	seq          int
	evicted      bool // some were forgotten
	evictedFirst int  // first of the last one forgotten
}

func (t *tracker) init() { t.byID = map[string]*msgState{} }

func (t *tracker) get(id string) *msgState { return t.byID[id] }

// add tracks a message first seen with rows made before it.
func (t *tracker) add(id string, rows int) *msgState {
	st := &msgState{seq: t.seq, first: rows, start: rows, end: rows}
	t.seq++
	t.byID[id] = st
	t.order = append(t.order, id)
	if len(t.order)-t.head > maxTracked {
		old := t.order[t.head]
		t.order[t.head] = ""
		t.head++
		t.evicted, t.evictedFirst = true, t.byID[old].first
		delete(t.byID, old)
		if t.head > maxTracked {
			t.order = append(t.order[:0], t.order[t.head:]...)
			t.head = 0
		}
	}
	return st
}

// dropFrom forgets the messages first seen at or after seq.
func (t *tracker) dropFrom(seq int) {
	for len(t.order) > t.head {
		id := t.order[len(t.order)-1]
		if t.byID[id].seq < seq {
			return
		}
		delete(t.byID, id)
		t.order = t.order[:len(t.order)-1]
	}
}

// subagentTask makes the file a subagent's of its session when its first
// message is the task Gemini CLI gives a subagent it runs: versions
// before subagents' files had their own folder and kind wrote the
// cli_help and codebase_investigator agents' chats beside their parent's, under the parent's session
// id, and its prompt (the question the model put, in the harness's
// words) was taken for the person's.
func (p *parser) subagentTask(v *version) {
	if v.role != "user" || !strings.HasPrefix(v.text, cliHelpTask) && !strings.HasPrefix(v.text, investigatorTask) {
		return
	}
	p.parent = p.sessionID()
	p.subagent, p.agentID = true, p.stem
}

// cliHelpTask opens the prompt of Gemini CLI's cli_help agent
// (packages/core/src/agents/cli-help-agent.ts).
const cliHelpTask = "Your task is to answer the following question about Gemini CLI:"

// investigatorTask opens the prompt of its codebase_investigator agent
// (packages/core/src/agents/codebase-investigator.ts), whose chat those
// versions wrote beside its parent's the same way (0.29).
const investigatorTask = "Your task is to do a deep investigation of the codebase"
