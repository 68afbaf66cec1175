package benchgen

import (
	"bytes"
	"math/rand/v2"
	"path/filepath"
)

// genContext is what every session writer shares, read-only.
type genContext struct {
	text        *TextSource
	plan        *plan
	projectsDir string
	seed        uint64
}

// sessionRand gives each session its own stream, so sessions can be
// written in any order, in parallel, with the same result.
func sessionRand(seed uint64, index int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(index)+1))
}

// writeSession writes one planned session with its subagents, side files
// and forks.
func writeSession(c *genContext, spec *sessionSpec) (Stats, error) {
	var stats Stats
	r := sessionRand(c.seed, spec.index)
	proj := &c.plan.projects[spec.project]
	projDir := filepath.Join(c.projectsDir, proj.slug)
	out, err := createTranscript(filepath.Join(projDir, spec.id+".jsonl"), len(spec.forks) > 0)
	if err != nil {
		return stats, err
	}
	t := newTopic(c.text, r)
	env := envelope{sessionID: spec.id, cwd: proj.cwd, gitBranch: branchFor(r, t), entrypoint: "cli"}
	if spec.headless {
		env.entrypoint = "sdk-cli"
	}
	if spec.version.envelopeV2 {
		env.slug = sessionNickname(r)
	}
	g := &sessionGen{
		lineWriter: &lineWriter{r: r, ver: spec.version, env: env, clock: spec.start, out: out, stats: &stats},
		spec:       spec,
		proj:       proj,
		topic:      t,
		projDir:    projDir,
		model:      pick(r, models),
		ide:        r.IntN(4) == 0,
		budget:     spec.budget,
	}
	g.opening()
	g.runTurns()
	g.closing()
	g.closeTranscript(out)
	stats.Sessions++
	if spec.headless {
		stats.Headless++
	}
	for i := range spec.forks {
		if g.err != nil {
			break
		}
		g.writeFork(&spec.forks[i], out.kept)
	}
	return stats, g.err
}

func (g *sessionGen) opening() {
	if g.spec.headless {
		return // the first line must be the queued prompt
	}
	if g.ver.summaryFirst {
		g.beginSide("summary")
		g.j.str("summary", truncateRunes(g.topic.sentence(g.r), 60))
		g.j.str("leafUuid", newUUID(g.r))
		g.endSide(kindMeta)
	}
	if g.ver.envelopeV2 {
		g.beginSide("permission-mode")
		g.j.str("permissionMode", pick(g.r, []string{"default", "acceptEdits", "bypassPermissions"}))
		g.j.str("sessionId", g.env.sessionID)
		g.endSide(kindMeta)
		if g.ver.newCaveat {
			g.beginSide("mode")
			g.j.str("mode", "normal")
			g.j.str("sessionId", g.env.sessionID)
			g.endSide(kindMeta)
		}
		g.sessionStartHook()
	}
	if g.spec.clearStart {
		g.caveat()
		g.userString(newUUID(g.r), builtinEcho("clear", ""), kindNoise, nil)
		g.userString(newUUID(g.r), "<local-command-stdout></local-command-stdout>", kindNoise, nil)
	}
}

func (g *sessionGen) closing() {
	if g.spec.headless {
		return
	}
	if g.r.IntN(10) == 0 {
		g.beginSide("custom-title")
		g.j.str("sessionId", g.env.sessionID)
		g.j.str("customTitle", truncateRunes(g.topic.ident(g.r)+" "+lowerFirst(g.topic.sentence(g.r)), 50))
		g.endSide(kindMeta)
	}
	if g.ver.envelopeV2 {
		g.beginSide("last-prompt")
		g.j.str("lastPrompt", truncateRunes(g.lastPrompt, 120))
		if g.ver.newCaveat {
			g.j.str("leafUuid", g.parent)
		}
		g.j.str("sessionId", g.env.sessionID)
		g.endSide(kindMeta)
	}
}

// writeFork writes a fork of the session just written: a new file with a
// new sessionId whose first lines are the parent's, keeping their
// original uuid and timestamp, then its own turns.
func (g *sessionGen) writeFork(f *forkSpec, kept []keptLine) {
	n := copiedLineCount(kept, f.copyShare)
	if n == 0 {
		return
	}
	out, err := createTranscript(filepath.Join(g.projDir, f.id+".jsonl"), false)
	if err != nil {
		g.setErr(err)
		return
	}
	oldID, newID := []byte(g.env.sessionID), []byte(f.id)
	for _, k := range kept[:n] {
		line := bytes.ReplaceAll(k.data, oldID, newID)
		if g.ver.forkedFrom && k.uuid != "" {
			line = withForkedFrom(line, g.env.sessionID, k.uuid)
		}
		if err := out.writeLine(line, k.uuid, k.at, k.kind); err != nil {
			g.setErr(err)
			break
		}
		g.stats.Lines++
		g.stats.Bytes += int64(len(line)) + 1
		g.stats.BytesByKind[k.kind] += int64(len(line)) + 1
	}
	last := kept[n-1]
	fork := &sessionGen{
		lineWriter: &lineWriter{r: g.r, ver: g.ver, env: g.env, clock: last.at.Add(f.gap), parent: last.uuid, out: out, stats: g.stats},
		spec:       g.spec,
		proj:       g.proj,
		topic:      g.topic,
		projDir:    g.projDir,
		model:      g.model,
		ide:        g.ide,
		budget:     out.bytes + f.budget,
	}
	fork.env.sessionID = f.id
	fork.runTurns()
	fork.closing()
	g.setErr(fork.err)
	g.closeTranscript(out)
	g.stats.Sessions++
	g.stats.Forks++
}

// copiedLineCount is how many parent lines a fork copies: the given
// share, ending on a threaded record so the fork's chain continues from
// a real uuid.
func copiedLineCount(kept []keptLine, share float64) int {
	n := min(len(kept), max(1, int(float64(len(kept))*share)))
	for n > 0 && kept[n-1].uuid == "" {
		n--
	}
	return n
}

// withForkedFrom adds the forkedFrom field 2.1.123 put on copied lines.
func withForkedFrom(line []byte, parentSession, uuid string) []byte {
	var w jsonWriter
	w.b = append(w.b, line[:len(line)-1]...)
	w.needComma = true
	w.object("forkedFrom")
	w.str("sessionId", parentSession)
	w.str("messageUuid", uuid)
	w.closeObject()
	return append(w.b, '}')
}
