package record

// Title kinds, as the role column of a title row holds them.
const (
	TitleCustom  = "custom-title" // `/rename`
	TitleAI      = "ai-title"     // Claude Code's name for the session
	TitleSummary = "summary"      // older versions' summary of a conversation
)

// TitleRank orders title kinds: a session is named by its latest title of
// the highest rank. A name the user gave beats one Claude Code made up,
// which beats an older version's summary; 0 is no title.
func TitleRank(kind string) int {
	switch kind {
	case TitleCustom:
		return 3
	case TitleAI:
		return 2
	case TitleSummary:
		return 1
	}
	return 0
}
