package record

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
		if got := TrailingUUID(tc.name); got != tc.want {
			t.Errorf("TrailingUUID(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestIsUUID(t *testing.T) {
	for s, want := range map[string]bool{
		"0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f04": true,
		"0199B6F2-1C3A-7D41-9E0A-5B7C2D9E1F04": true,
		"0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f0":  false,
		"0199b6f2x1c3a-7d41-9e0a-5b7c2d9e1f04": false,
		"0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1fzz": false,
		"g199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f04": false,
		"":                                     false,
	} {
		if got := IsUUID(s); got != want {
			t.Errorf("IsUUID(%q) = %v, want %v", s, got, want)
		}
	}
}
