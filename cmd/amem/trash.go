package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/wire"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// trashFlag adds serve's --trash-for to f.
func (a *app) trashFlag(f *pflag.FlagSet) {
	f.DurationVar(&a.trashFor, "trash-for", memory.DefaultTrashFor, "how long a deleted note stays in the trash, restorable, before it is deleted for good (negative: no trash, delete deletes for good)")
}

func (a *app) deleteCmd() *cobra.Command {
	var purge bool
	c := &cobra.Command{
		Use:   "delete ID",
		Short: "delete a note, its links (both ways) and its history, into the trash ('amem restore ID' brings it back)",
		Args:  exactArgs(1, "a note ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if purge {
				return a.purge(args)
			}
			return a.withNote(args[0], func(mem *memory.Memory, n amem.Note) error {
				if err := mem.Delete(a.ctx, n.Namespace, n.ID); err != nil {
					return err
				}
				if a.jsonOut {
					return a.printJSON(wire.Deleted{Deleted: n.ID})
				}
				if keep := mem.Trash().Retention(); keep > 0 {
					fmt.Fprintf(a.stdout, "deleted %s (in the trash until %s: 'amem restore %s' brings it back)\n",
						n.ID, time.Now().Add(keep).Format("2006-01-02"), n.ID)
					return nil
				}
				fmt.Fprintf(a.stdout, "deleted %s for good\n", n.ID)
				return nil
			})
		},
	}
	c.Flags().BoolVar(&purge, "purge", false, "delete for good, with no way back (also a note already in the trash)")
	return c
}

func (a *app) trashCmd() *cobra.Command {
	var after string
	var limit int
	c := &cobra.Command{
		Use:   "trash",
		Short: "list a namespace's deleted notes, which 'amem restore ID' brings back until they expire",
		Args:  exactArgs(0, ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withMemory(func(mem *memory.Memory) error {
				trash := mem.Trash()
				entries, err := trash.List(a.ctx, a.ns(), amem.TrashQuery{After: after, Limit: limit})
				if err != nil {
					return err
				}
				if a.jsonOut {
					return a.printJSON(wire.Items(entries, func(e amem.Trashed) wire.Trashed { return wire.TrashedOf(e, trash.Retention()) }))
				}
				for _, e := range entries {
					fmt.Fprintf(a.stdout, "%s  deleted %s  expires %s  %s\n", e.Note.ID, e.DeletedAt.Local().Format("2006-01-02 15:04"),
						e.DeletedAt.Add(trash.Retention()).Local().Format("2006-01-02"), oneLine(e.Note.Content, 70))
				}
				if len(entries) == 0 {
					fmt.Fprintf(a.stderr, "the trash of namespace %s is empty\n", a.ns())
				}
				if len(entries) == limit {
					fmt.Fprintf(a.stderr, "more: %s\n", nextPage(cmd, entries[len(entries)-1].Note.ID))
				}
				return nil
			})
		},
	}
	f := c.Flags()
	f.StringVar(&after, "after", "", "start after this ID (paging)")
	f.IntVar(&limit, "limit", 100, "at most this many notes")
	return c
}

// restoreTrashed is 'amem restore ID': the note back from the trash.
func (a *app) restoreTrashed(id string) error {
	return a.withMemoryOf(a.ns(), id, func(mem *memory.Memory) error {
		ns, err := a.trashedNamespace(mem, id)
		if err != nil {
			return err
		}
		n, err := mem.Trash().Restore(a.ctx, ns, id)
		if err != nil {
			return err
		}
		if a.jsonOut {
			return a.printJSON(wire.NoteOf(n))
		}
		fmt.Fprintf(a.stdout, "restored %s from the trash (now version %d)\n", n.ID, n.Version)
		return nil
	})
}

// trashedNamespace is the namespace of the trashed note id: the
// --namespace flag if given, else wherever the trash holds it.
func (a *app) trashedNamespace(mem *memory.Memory, id string) (string, error) {
	if a.namespace != "" {
		return a.namespace, nil
	}
	e, err := mem.Trash().Lookup(a.ctx, id)
	if errors.Is(err, amem.ErrNotFound) {
		return "", fmt.Errorf("note %s is not in the trash: %w (list it with 'amem trash -n NAMESPACE')", id, err)
	}
	return e.Note.Namespace, err
}

func (a *app) purgeCmd() *cobra.Command {
	var all bool
	c := &cobra.Command{
		Use:   "purge ID... | --all",
		Short: "delete notes for good, live or in the trash; --all empties a namespace's trash",
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case all && len(args) > 0:
				return usagef("purge takes note IDs or --all, not both")
			case all:
				return a.emptyTrash()
			case len(args) == 0:
				return usagef("purge needs note IDs, or --all to empty the trash (usage: amem purge ID... | --all)")
			}
			return a.purge(args)
		},
	}
	c.Flags().BoolVar(&all, "all", false, "empty the namespace's trash")
	return c
}

// purge deletes each note for good, wherever it is: live or in the trash.
func (a *app) purge(ids []string) error {
	return a.withMemoryOf(a.ns(), ids[0], func(mem *memory.Memory) error {
		for _, id := range ids {
			ns, err := a.purgeNamespace(mem, id)
			if err == nil {
				err = mem.Purge(a.ctx, ns, id)
			}
			if err != nil {
				return err
			}
			if !a.jsonOut {
				fmt.Fprintf(a.stdout, "deleted %s for good\n", id)
			}
		}
		if a.jsonOut {
			return a.printJSON(wire.Purged{Purged: len(ids)})
		}
		return nil
	})
}

// purgeNamespace finds id's namespace among live notes, then in the trash.
func (a *app) purgeNamespace(mem *memory.Memory, id string) (string, error) {
	if a.namespace != "" {
		return a.namespace, nil
	}
	n, err := mem.Lookup(a.ctx, id)
	if err == nil {
		return n.Namespace, nil
	}
	if !errors.Is(err, amem.ErrNotFound) {
		return "", err
	}
	if ns, err := a.trashedNamespace(mem, id); err == nil {
		return ns, nil
	}
	return "", fmt.Errorf("note %s: %w (neither live nor in the trash)", id, amem.ErrNotFound)
}

func (a *app) emptyTrash() error {
	return a.withMemory(func(mem *memory.Memory) error {
		n, err := mem.Trash().Empty(a.ctx, a.ns())
		if err != nil {
			return err
		}
		if a.jsonOut {
			return a.printJSON(wire.Purged{Purged: n})
		}
		fmt.Fprintf(a.stdout, "emptied the trash of namespace %s: %d note(s) deleted for good\n", a.ns(), n)
		return nil
	})
}

// restoreArgs are restore's: an ID and a version, or an ID alone for a
// note in the trash.
func restoreArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 1 || len(args) == 2 {
		return nil
	}
	return usagef("restore needs a note ID and the version to go back to (see 'amem history ID'), or the ID alone of a deleted note (see 'amem trash'); got %d argument(s) (usage: amem %s)", len(args), cmd.Use)
}
