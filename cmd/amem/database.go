package main

// A verb that only reads (or changes notes that must already be there)
// never creates a database: a mistyped --db or AMEM_DB used to leave an
// empty database, and its directories, behind and report no notes, as if
// the memory had been emptied. Only the verbs that store notes or keys
// (add, import, keys create) and the servers create one.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/local"
	"github.com/amem-dev/amem/memory"
)

// noDatabaseError is a verb's refusal to create the database it would
// read: exit status 3, as for a note that is not there.
type noDatabaseError struct{ path, from string }

func (e noDatabaseError) Error() string {
	return fmt.Sprintf("no database at %s (chosen by %s); nothing was created: "+
		"'amem add TEXT' or 'amem import' creates it, or name an existing one with --db or AMEM_DB", e.path, e.from)
}

func (e noDatabaseError) Unwrap() error { return amem.ErrNotFound }

// checkDB checks the database path before a verb opens it. A path that
// names a directory is a usage error for every verb (SQLite said only
// "unable to open database file"); a missing file is a noDatabaseError
// when mustExist. A PostgreSQL URL passes: its server holds the database.
func (a *app) checkDB(mustExist bool) error {
	path := a.Cfg.Path
	pg, err := local.IsPostgres(path)
	if err != nil || pg {
		return err
	}
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return usagef("the database %s (chosen by %s) is a directory; name a file, such as %s",
			path, a.DBFrom, filepath.Join(path, "amem.db"))
	case mustExist && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)):
		return noDatabaseError{path, a.DBFrom}
	}
	return nil
}

// knownNamespace refuses a verb on a namespace the database does not
// hold, which would otherwise print nothing, as if it were empty: a
// mistyped name is told apart from a namespace with no matches.
func (a *app) knownNamespace(mem *memory.Memory, ns string) error {
	if err := amem.ValidNamespace(ns); err != nil {
		return err
	}
	infos, err := mem.Namespaces(a.ctx)
	if err != nil {
		return err
	}
	for _, in := range infos {
		if in.Name == ns {
			return nil
		}
	}
	return fmt.Errorf("namespace %s: %w: the database holds no such namespace ('amem namespaces' lists those it holds)", ns, amem.ErrNotFound)
}
