package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/internal/problem"
)

// TestDamageErrorsNameNoCommand: the store's damage errors say what is
// wrong and name their remedy as a value; command lines are the front
// ends' to write, and the sentinels stay reachable.
func TestDamageErrorsNameNoCommand(t *testing.T) {
	for _, tt := range []struct {
		name     string
		damage   func(t *testing.T, dir string, m *manifest.Manifest) error
		sentinel error
		remedy   problem.Remedy
	}{
		{"blocks cut short", func(t *testing.T, dir string, m *manifest.Manifest) error {
			must(t, os.Truncate(filepath.Join(dir, m.BlocksName()), m.BlocksBytes/2))
			_, err := snapshot.Open(dir)
			return err
		}, snapshot.ErrBlocksDamaged, problem.Index},
		{"manifest garbled", func(t *testing.T, dir string, m *manifest.Manifest) error {
			must(t, os.WriteFile(filepath.Join(dir, manifest.Name), []byte("not a manifest\n"), 0o600))
			_, err := snapshot.Open(dir)
			return err
		}, manifest.ErrDamaged, problem.Index},
		{"rows cut short", func(t *testing.T, dir string, m *manifest.Manifest) error {
			must(t, os.Truncate(filepath.Join(dir, m.RowsName()), m.RowsBytes/2))
			w, err := openRowsWriterAt(dir, m, nil)
			if err == nil {
				w.Close()
			}
			return err
		}, snapshot.ErrBlockDamaged, problem.Repair},
		{"tombstone garbled", func(t *testing.T, dir string, m *manifest.Manifest) error {
			must(t, os.WriteFile(filepath.Join(dir, forgottenName), []byte("garbage"), 0o600))
			_, err := readTombstone(dir)
			return err
		}, errTombstoneDamaged, problem.RestoreTombstone},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir, _ := sessionsIndex(t)
			m, err := manifest.ReadLazy(dir)
			must(t, err)
			err = tt.damage(t, dir, m)
			if !errors.Is(err, tt.sentinel) {
				t.Fatalf("error %v, want %v", err, tt.sentinel)
			}
			if strings.Contains(err.Error(), "recall ") || strings.Contains(err.Error(), "--") {
				t.Errorf("error names a command: %v", err)
			}
			if p, ok := problem.Find(err); !ok || p.Remedy != tt.remedy {
				t.Errorf("remedy of %v = %v (found %v), want %v", err, p.Remedy, ok, tt.remedy)
			}
		})
	}
}
