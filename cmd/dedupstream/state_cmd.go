package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream/admin"
)

const stateUsage = `usage: dedupstream state <command> [flags]

commands:
  stats     documents, sizes and sketch version of a state directory
  backup    write a backup: of a stopped state (--state) or of a running filter (--from its admin URL)
  restore   load a backup into a new, empty state directory
  compact   merge the LSM levels and collect value-log garbage (stopped state)
  collect   read a sharded filter's whole index from its sequence log into a new
            single-instance state directory (takes the filter's configuration)
`

// cmdState runs the state maintenance commands.
func cmdState(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, stateUsage)
		return errUsage
	}
	if args[0] == "collect" {
		return cmdStateCollect(ctx, args[1:], stdout, stderr)
	}
	fs := newFlags("state "+args[0], stderr)
	dir := fs.String("state", "./data", "state directory")
	from := fs.String("from", "", "backup: admin URL of a running filter, e.g. http://127.0.0.1:9090")
	out := fs.String("out", "", "backup: file to write (default stdout)")
	in := fs.String("in", "", "restore: backup file to read (default stdin)")
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	switch args[0] {
	case "stats":
		return stateStats(*dir, stdout)
	case "backup":
		return stateBackup(ctx, *dir, *from, *out, stdout)
	case "restore":
		return stateRestore(*dir, *in)
	case "compact":
		return withStore(*dir, func(s *state.Store) error {
			fmt.Fprintf(stdout, "compacting %s\n", *dir)
			start := time.Now()
			if err := s.Compact(); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "compacted %s in %s\n", *dir, time.Since(start).Round(time.Millisecond))
			return nil
		})
	}
	fmt.Fprintf(stderr, "dedupstream state: unknown command %q\n\n%s", args[0], stateUsage)
	return errUsage
}

// withStore opens a stopped state directory (any sketch version), runs fn, closes it.
func withStore(dir string, fn func(*state.Store) error) error {
	if _, err := os.Stat(dir); err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	s, err := state.Open(state.Options{Dir: dir, GCInterval: -1})
	if err != nil {
		return err
	}
	return errors.Join(fn(s), s.Close())
}

func stateStats(dir string, w io.Writer) error {
	return withStore(dir, func(s *state.Store) error {
		st := s.Stats()
		fmt.Fprintf(w, "state %s\n  sketch      %s\n  documents   %d\n  lsm bytes   %d\n  vlog bytes  %d\n  index       %d postings, %d replay postings, %d bytes in memory\n",
			dir, s.SketchVersion(), st.Docs, st.LSMBytes, st.VLogBytes, st.Postings, st.Replays, st.IndexBytes)
		return nil
	})
}

// stateBackup writes a backup of the stopped state dir, or of the running
// filter whose admin URL is from, to out (stdout if empty).
func stateBackup(ctx context.Context, dir, from, out string, stdout io.Writer) error {
	if from == "" {
		return withStore(dir, func(s *state.Store) error {
			return writeOut(out, stdout, func(w io.Writer) error { _, err := s.Backup(w); return err })
		})
	}
	body, err := admin.FetchBackup(ctx, from)
	if err != nil {
		return err
	}
	defer body.Close()
	return writeOut(out, stdout, func(w io.Writer) error {
		if _, err := io.Copy(w, body); err != nil {
			return fmt.Errorf("backup from %s: %w", from, err)
		}
		return nil
	})
}

// writeOut calls write with the file out (writeFile), or stdout if out is
// empty.
func writeOut(out string, stdout io.Writer, write func(io.Writer) error) error {
	if out == "" {
		return write(stdout)
	}
	return writeFile(out, write)
}

// writeFile creates path, only now, and writes it with write; an empty path
// writes nothing. A failed write removes the file: a cut backup or page file
// must not be mistaken for a whole one.
func writeFile(path string, write func(io.Writer) error) error {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err = errors.Join(write(f), f.Close()); err != nil {
		return fmt.Errorf("write %s: %w", path, errors.Join(err, os.Remove(path)))
	}
	return nil
}

func stateRestore(dir, in string) error {
	r := io.Reader(os.Stdin)
	if in != "" {
		f, err := os.Open(in)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	return state.Restore(dir, r)
}
