package mcpserver

// What the model reads about the server and its tools: when to recall,
// and the query language (README.md, "Query language").

const instructions = `recall searches the user's past Claude Code sessions (prompts, answers, tool calls and subagents, across every project), from an index that outlives Claude Code's 30-day transcript cleanup.

Recall before guessing when the user refers to earlier work ("like last time", "what did we decide about X", "we fixed this before", "find the session where..."), when a task probably repeats something solved in another session or project, or when you need an error, command, decision or reason from a previous conversation. Use search to find sessions, show to read the conversation around a hit, sessions to list recent sessions. Tell the user which session (date and project) an answer came from.`

const searchDescription = `Search the user's past Claude Code sessions, grep-style, and rank whole sessions by how well they match. Returns the best sessions (5 by default), each with its best matching messages (5): type, time, a snippet and its evidence (transcript:line), which the show tool opens. The session you are in is never shown.

Query syntax:
- query "jwt refresh token": the words are OR'ed; sessions matching more of them, closer together, rank higher. Matching is case-insensitive substring (error finds errors and IOError), except that a word of one or two letters or digits matches only as a word (id finds "the id" and user_id, not Guide), and each word also finds its English word forms (translated finds Translate) and its spelling with or without accents (cestiny finds češtiny), which weigh less than exact hits.
- "\"connection reset by peer\"" inside query: an exact phrase.
- _ matches any one character: v1_2 finds v1.2, v1-2 and v1_2.
- require "implement": every one of these words must also match (per message, or per session with scope "session").
- exclude "test": leave out messages (or with scope "session", sessions) that contain any of these words.
- A natural-language question works as a query: stop words and punctuation are dropped, a stray double quote is a plain character, and words like "last week" or a date ("on March 3", "2026-03-03", "in July 2025") also favour sessions from then.
- project ".", since "30d", until "2026-01-31" narrow the search.

Start broad with two or three likely words, then narrow with require and exclude rather than stacking many OR'ed words. No match is not an error: try other words.

Size: a result holds at most max_tokens (default 8000, at most 16000, counted as 3 bytes a token). Sessions that do not fit, or past limit, are left for the next page: next_offset is set then, and passing it as offset returns the sessions after; notes say what was left out. total says how many sessions matched when the ranking reached them all; count=true ranks them all (slower for common words) to get it.`

const showDescription = `Read a past session from recall's index, even after Claude Code deleted its transcript: the messages around one (5 before and after by default), or the whole session in order with full=true (subagent messages marked). Give session as a session id (a unique prefix is enough) or as a search result's evidence "transcript:line"; pass query (the words you searched for) to highlight them and, without a line, to centre on the first message that matches. Every message keeps its transcript:line evidence.

Size: a result holds at most max_tokens (default 12000, at most 16000, counted as 3 bytes a token); a message longer than a fifth of that is cut, saying how much was left out. With full=true a long session comes a page at a time: next_offset is set while messages are left, and passing it as offset (with full=true) returns the next page; messages_total and first_shown say where the page is.`

const sessionsDescription = `List the user's indexed Claude Code sessions, newest first: id, project, first and last time, number of messages, the first prompt, and whether the transcript is still on disk (the index keeps sessions Claude Code has deleted). Filter with project ('.' for the current project), since and until. Use it to find "the session from yesterday" or what was worked on in a project; use search to find sessions by what was said.

Size: a result holds at most max_tokens (default 6000, at most 16000, counted as 3 bytes a token); total counts every session that matched, and next_offset, when set, is the offset of the next page.`
