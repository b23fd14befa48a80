package main

// A namespace remembers its embedder: the store records the embedder of
// each namespace (amem.NamespaceInfo), and `amem reembed --embedder X`
// changes it. When no flag, variable or configuration file chooses an
// embedder, a command on a namespace uses the one it records, so that
// after a reembed the flag need not be typed again.

import (
	"errors"
	"fmt"
	"os"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/local"
)

// configFor is the configuration of a command on namespace ns: a.Cfg,
// with ns's recorded embedder when nothing chose one. id, when the
// command names a note without --namespace, stands for ns: the note's
// namespace is the one that counts.
func (a *app) configFor(ns, id string) (local.Config, error) {
	cfg := a.Cfg
	if cfg.Embedder != "" {
		return cfg, nil
	}
	spec, err := a.recordedEmbedder(ns, id)
	if err != nil {
		return cfg, err
	}
	cfg.Embedder = spec
	return cfg, nil
}

// recordedEmbedder is the Config.Embedder of the embedder namespace ns
// (or note id's namespace) records: "" for a new namespace, an unknown
// note (whose command then says so) or an embedder no name makes (the
// default then applies, and the namespace refuses it, naming both).
func (a *app) recordedEmbedder(ns, id string) (string, error) {
	var info amem.NamespaceInfo
	err := a.viewStore(func(tx amem.Tx) error {
		if id != "" && a.namespace == "" {
			if n, err := tx.FindNote(id); err == nil {
				ns = n.Namespace
			}
		}
		var err error
		info, err = tx.Namespace(ns)
		return err
	})
	var noDB noDatabaseError
	if errors.Is(err, amem.ErrNotFound) || errors.As(err, &noDB) {
		return "", nil // a new namespace, or a database add will create
	}
	if err != nil {
		return "", err
	}
	spec, _ := local.EmbedderSpec(info.Embedder)
	return spec, nil
}

// viewStore reads the store, which must exist, in one transaction,
// without a Memory: no embedder is loaded for it.
func (a *app) viewStore(fn func(amem.Tx) error) error {
	if err := a.checkDB(true); err != nil {
		return err // before anything is created at a bad path
	}
	st, err := local.OpenStore(a.ctx, a.Cfg.Path)
	if err != nil {
		return err
	}
	err = st.View(a.ctx, fn)
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	return err
}

// embedderSource says what chose the embedder: the flag, the variable or
// the configuration file; "" when none did.
func (a *app) embedderSource() string {
	switch {
	case a.Flags.Embedder != "":
		return "--embedder"
	case os.Getenv("AMEM_EMBEDDER") != "":
		return "AMEM_EMBEDDER"
	case a.Cfg.Embedder != "":
		return "the configuration file " + a.ConfigFile
	}
	return ""
}

// explainMismatch rewords a namespace's refusal of the embedder in the
// names a user types, with what chose the embedder and the two ways out;
// other errors pass unchanged.
func (a *app) explainMismatch(err error) error {
	var me *amem.EmbedderMismatchError
	if !errors.As(err, &me) {
		return err
	}
	stored, ok := local.EmbedderSpec(me.Stored)
	if !ok {
		stored = me.Stored
	}
	configured, ok := local.EmbedderSpec(me.Configured)
	if !ok {
		configured = me.Configured
	}
	var fix string
	if src := a.embedderSource(); src != "" {
		fix = fmt.Sprintf("%s chose %s (%s, %d dimensions); leave %s out to use the namespace's embedder, "+
			"or switch the namespace with 'amem reembed --namespace %s --embedder %s'",
			src, configured, me.Configured, me.Dimensions, src, me.Namespace, configured)
	} else {
		// Nothing chose: the namespace's embedder is one amem cannot
		// open by name, or another version of the sentence model.
		fix = fmt.Sprintf("this command's embedder is the default, %s (%s, %d dimensions); "+
			"switch the namespace to it with 'amem reembed --namespace %s', or choose another with --embedder",
			configured, me.Configured, me.Dimensions, me.Namespace)
	}
	return mismatchError{fmt.Sprintf("namespace %s is embedded with %s (%s, %d dimensions), but %s",
		me.Namespace, stored, me.Stored, me.StoredDimensions, fix), err}
}

// mismatchError is explainMismatch's message over the original error,
// which errors.Is and errors.As still find.
type mismatchError struct {
	msg string
	err error
}

func (e mismatchError) Error() string { return e.msg }

// Unwrap also names amem.ErrInvalid: the embedder chosen is bad input,
// fixed by choosing another (exit status 2), not a failure of amem.
func (e mismatchError) Unwrap() []error { return []error{e.err, amem.ErrInvalid} }
