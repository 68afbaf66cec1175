package aider

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// Aider's history names no session and no message, and times only the
// start of a session, in local time without a zone. The ids are derived
// from what does not change as the file grows (it is only ever appended
// to):
//
//   - a session's id is "aider-" + its start in UTC (20060102T150405Z) +
//     "-" + the first 8 hex digits of the SHA-256 of the history's path:
//     two projects' sessions started in the same second differ. Two
//     sessions of one file started in the same second (a run ended at
//     once and started again) add the header's line number to what is
//     hashed, so that the second one differs from the first.
//   - a message's UUID is 32 hex digits of the SHA-256 of its session's
//     id, its first line's number in the file and its role: stable
//     whenever and in however many pieces the file is read, and distinct
//     for the same words typed twice.
//
// The start is read in the local time zone (where Aider wrote it, most
// likely) and kept in the id, so a read continuing a session takes its
// rows' time from the id, not from a header it does not see again.

const (
	sessionPrefix = "aider-"
	idTimeLayout  = "20060102T150405Z"
	// headerTimeLayout is how Aider writes a session's start
	// (datetime.now().strftime("%Y-%m-%d %H:%M:%S")).
	headerTimeLayout = "2006-01-02 15:04:05"
	// rowTimeLayout is the rows' timestamp (transcript.Meta).
	rowTimeLayout = "2006-01-02T15:04:05.000Z"
)

// sessionID is the id of the session whose header is on line of the
// history at path, started at start; clash says an earlier session of
// the file started in the same second.
func sessionID(path string, start time.Time, line int, clash bool) string {
	key := path
	if clash {
		key += "\x00" + strconv.Itoa(line)
	}
	sum := sha256.Sum256([]byte(key))
	return sessionPrefix + start.UTC().Format(idTimeLayout) + "-" + hex.EncodeToString(sum[:4])
}

// sessionStart is the start a session id holds; ok is false for a string
// that is not an Aider session id.
func sessionStart(id string) (start time.Time, ok bool) {
	rest, found := strings.CutPrefix(id, sessionPrefix)
	if !found || len(rest) != len(idTimeLayout)+1+8 || rest[len(idTimeLayout)] != '-' {
		return time.Time{}, false
	}
	start, err := time.Parse(idTimeLayout, rest[:len(idTimeLayout)])
	if err != nil {
		return time.Time{}, false
	}
	return start.UTC(), true
}

// messageUUID is the UUID of the message of role that starts on line of
// session.
func messageUUID(session string, line int, role string) string {
	var buf [128]byte
	key := append(buf[:0], session...)
	key = append(key, 0)
	key = strconv.AppendInt(key, int64(line), 10)
	key = append(key, 0)
	key = append(key, role...)
	sum := sha256.Sum256(key)
	var id [32]byte
	hex.Encode(id[:], sum[:16])
	return string(id[:])
}
