package show

import "testing"

func TestTrailingUUID(t *testing.T) {
	const id = "0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f04"
	for _, tc := range []struct{ name, want string }{
		{"rollout-2026-03-14T09-15-00-" + id + ".jsonl", id},
		{"rollout-2026-03-14T09-15-00-" + id + ".jsonl.zst", id},
		{"rollout-2025-05-10-" + id + ".json", id},
		{id + ".jsonl", id},
		{"agent-a1b2c3d4e5f60718.jsonl", ""},
		{"session-2026-03-01T10-00-5b6234f8.json", ""},
		{"rollout-0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1fzz.jsonl", ""},
		{"0199b6f2x1c3a-7d41-9e0a-5b7c2d9e1f04.jsonl", ""},
		{".jsonl", ""},
	} {
		if got := trailingUUID(tc.name); got != tc.want {
			t.Errorf("trailingUUID(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
