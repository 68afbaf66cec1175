package benchgen

import (
	"math/rand/v2"
	"strings"
	"time"
)

// envelope is the part of every threaded record that identifies where it
// belongs.
type envelope struct {
	sessionID  string
	cwd        string
	gitBranch  string
	entrypoint string // "cli", or "sdk-cli" for headless runs
	slug       string // session nickname, e.g. misty-jumping-falcon
	agentID    string // set in subagent files
	sidechain  bool
}

// lineWriter writes the records of one transcript file: it owns the
// envelope, the parentUuid chain and the clock. Write errors are sticky
// (like bufio.Writer) so the many small helpers need no error plumbing;
// the first one is reported when the session ends.
type lineWriter struct {
	r      *rand.Rand
	ver    cliVersion
	env    envelope
	clock  time.Time
	parent string // uuid of the last threaded record
	out    *transcript
	j      jsonWriter
	stats  *Stats
	err    error
}

func (lw *lineWriter) setErr(err error) {
	if lw.err == nil {
		lw.err = err
	}
}

// tick moves the clock forward by a random amount in [lo, hi).
func (lw *lineWriter) tick(lo, hi time.Duration) {
	lw.clock = lw.clock.Add(lo + time.Duration(lw.r.Int64N(int64(hi-lo)+1)))
}

// begin starts a threaded record of the given type with its envelope.
func (lw *lineWriter) begin(typ string) {
	w := &lw.j
	w.reset()
	w.openObject()
	w.strOrNull("parentUuid", lw.parent)
	w.bool("isSidechain", lw.env.sidechain)
	w.str("userType", "external")
	w.str("cwd", lw.env.cwd)
	w.str("sessionId", lw.env.sessionID)
	w.str("version", lw.ver.name)
	w.str("gitBranch", lw.env.gitBranch)
	if lw.env.agentID != "" {
		w.str("agentId", lw.env.agentID)
	}
	// Headless runs always say sdk-cli: that is how they are recognised.
	if lw.ver.envelopeV2 || lw.env.entrypoint == "sdk-cli" {
		w.str("entrypoint", lw.env.entrypoint)
		if lw.env.slug != "" {
			w.str("slug", lw.env.slug)
		}
	}
	w.str("type", typ)
}

// end closes a threaded record, writes it and makes it the parent of the
// next one.
func (lw *lineWriter) end(uuid string, kind lineKind) {
	w := &lw.j
	w.str("uuid", uuid)
	w.str("timestamp", formatTimestamp(lw.clock))
	w.closeObject()
	lw.emit(kind, uuid)
	lw.parent = uuid
}

// beginSide starts a flat side record (no uuid, no chain).
func (lw *lineWriter) beginSide(typ string) {
	w := &lw.j
	w.reset()
	w.openObject()
	w.str("type", typ)
}

func (lw *lineWriter) endSide(kind lineKind) {
	lw.j.closeObject()
	lw.emit(kind, "")
}

func (lw *lineWriter) emit(kind lineKind, uuid string) {
	if lw.err != nil {
		return
	}
	if err := lw.out.writeLine(lw.j.b, uuid, lw.clock, kind); err != nil {
		lw.setErr(err)
		return
	}
	n := int64(len(lw.j.b)) + 1
	lw.stats.Lines++
	lw.stats.Bytes += n
	lw.stats.BytesByKind[kind] += n
}

// countHuman records human-authored text for the summary.
func (lw *lineWriter) countHuman(text string) {
	lw.stats.HumanTextBytes += int64(len(text))
	lw.stats.HumanMessages++
}

// userString writes a user record whose content is a plain string.
// extra adds fields such as isMeta or promptId.
func (lw *lineWriter) userString(uuid, text string, kind lineKind, extra func(w *jsonWriter)) {
	lw.begin("user")
	w := &lw.j
	w.object("message")
	w.str("role", "user")
	w.str("content", text)
	w.closeObject()
	if extra != nil {
		extra(w)
	}
	lw.end(uuid, kind)
}

// userTextBlock writes a user record holding one text block, the shape
// of interruption markers.
func (lw *lineWriter) userTextBlock(text string) string {
	uuid := newUUID(lw.r)
	lw.begin("user")
	w := &lw.j
	w.object("message")
	w.str("role", "user")
	w.array("content")
	w.openObject()
	w.str("type", "text")
	w.str("text", text)
	w.closeObject()
	w.closeArray()
	w.closeObject()
	lw.end(uuid, kindNoise)
	return uuid
}

// apiResponse is one Messages API response; each of its content blocks
// becomes its own assistant line sharing id and requestId.
type apiResponse struct {
	id, requestID, model string
}

var models = []string{"claude-opus-4-5-20251101", "claude-sonnet-4-5-20250929", "claude-opus-4-6", "claude-haiku-4-5-20251001"}

func (lw *lineWriter) newResponse(model string) apiResponse {
	return apiResponse{id: newMessageID(lw.r), requestID: newRequestID(lw.r), model: model}
}

// assistant writes one assistant line with a single content block.
func (lw *lineWriter) assistant(resp apiResponse, kind lineKind, stop string, block func(w *jsonWriter), extra func(w *jsonWriter)) string {
	uuid := newUUID(lw.r)
	lw.begin("assistant")
	w := &lw.j
	w.object("message")
	w.str("model", resp.model)
	w.str("id", resp.id)
	w.str("type", "message")
	w.str("role", "assistant")
	w.array("content")
	w.openObject()
	block(w)
	w.closeObject()
	w.closeArray()
	if stop == "" {
		w.null("stop_reason")
	} else {
		w.str("stop_reason", stop)
	}
	w.null("stop_sequence")
	lw.usage()
	w.closeObject()
	w.str("requestId", resp.requestID)
	if extra != nil {
		extra(w)
	}
	lw.end(uuid, kind)
	return uuid
}

func (lw *lineWriter) usage() {
	w := &lw.j
	r := lw.r
	w.object("usage")
	w.int("input_tokens", int64(1+r.IntN(12)))
	w.int("cache_creation_input_tokens", int64(r.IntN(6000)))
	w.int("cache_read_input_tokens", int64(12000+r.IntN(150000)))
	w.int("output_tokens", int64(1+r.IntN(900)))
	w.str("service_tier", "standard")
	w.closeObject()
}

func (lw *lineWriter) assistantText(resp apiResponse, text, stop string) string {
	lw.countHuman(text)
	return lw.assistant(resp, kindAssistantText, stop, func(w *jsonWriter) {
		w.str("type", "text")
		w.str("text", text)
	}, nil)
}

func (lw *lineWriter) assistantThinking(resp apiResponse, text string) string {
	sig := newSignature(lw.r)
	return lw.assistant(resp, kindThinking, "", func(w *jsonWriter) {
		w.str("type", "thinking")
		w.str("thinking", text)
		w.str("signature", sig)
	}, nil)
}

func (lw *lineWriter) assistantToolUse(resp apiResponse, toolUseID string, call *toolCall) string {
	return lw.assistant(resp, kindToolUse, "tool_use", func(w *jsonWriter) {
		w.str("type", "tool_use")
		w.str("id", toolUseID)
		w.str("name", call.name)
		w.object("input")
		call.input(w)
		w.closeObject()
		if lw.ver.envelopeV2 {
			w.object("caller")
			w.str("type", "direct")
			w.closeObject()
		}
	}, nil)
}

// toolResult writes the user record answering a tool_use, with the
// structured toolUseResult copy.
func (lw *lineWriter) toolResult(toolUseID, assistantUUID string, call *toolCall) string {
	uuid := newUUID(lw.r)
	lw.begin("user")
	w := &lw.j
	w.object("message")
	w.str("role", "user")
	w.array("content")
	w.openObject()
	w.str("tool_use_id", toolUseID)
	w.str("type", "tool_result")
	w.str("content", call.result)
	w.bool("is_error", call.isError)
	w.closeObject()
	w.closeArray()
	w.closeObject()
	if call.useResult != nil {
		w.key("toolUseResult")
		call.useResult(w)
	}
	w.str("sourceToolAssistantUUID", assistantUUID)
	lw.end(uuid, kindToolResult)
	return uuid
}

// truncateRunes cuts s to at most n bytes on a rune boundary, adding "…"
// when it cut (as last-prompt does).
func truncateRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xc0 == 0x80 {
		n--
	}
	return strings.TrimSpace(s[:n]) + "…"
}
