package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Prepared statements. With this driver, preparing a statement was more
// than half the CPU time of a point read: BenchmarkGetNote took 90-150µs
// preparing each statement and 50-70µs with these (2-vCPU VM, loaded).
// Every statement a tx runs, bar the filtered searches' assembled queries
// (MatchIDs, LexicalSearch with a filter), is a constant, so Open prepares
// them on each pool; database/sql then prepares each on every connection
// of the pool once, at its first use there (Tx.StmtContext), and keeps it.
//
// They are prepared at Open, not lazily, because preparing on a *sql.DB
// needs a free connection, and the write pool's only one is held by the
// transaction that would ask.

// readQueries are the statements of View transactions.
var readQueries = []string{
	selectNamespace, selectNamespaces,
	selectNote, selectNotes, selectNotesNoVector, findNote, listNotes, listNotesInState, listNotesVec, listNotesInStateVec,
	selectVersion, selectFeed, selectChanged, selectTombstones,
	noteIDsByContent, noteIDsByContentAt,
	byEventAsc, byEventAscAfter, byEventDesc, byEventDescAfter, undatedAsc, undatedDesc, undatedDescAfter,
	selectLinksOf, selectLinkEnds,
	selectEmbeddingsOf,
	selectVersions, selectUsageTotals, selectNoteUsage, countNotesByState, countLinks,
	anyDueEvent,
}

// writeOnlyQueries are the statements only Update transactions run.
var writeOnlyQueries = []string{
	upsertNamespace, insertNote, updateNote, deleteNote,
	upsertLink, deleteLinksFrom, insertVersion, insertUsage,
	takeSeq, insertTombstone, selectOldTombstones, deleteOldTombstones, raiseHorizon,
	claimDue, claimNote, renewClaim, releaseClaim,
	recordEvent, claimEvents,
}

// pool is a *sql.DB with its prepared statements.
type pool struct {
	db    *sql.DB
	stmts map[string]*sql.Stmt // read-only after prepare
}

func (p *pool) prepare(ctx context.Context, lists ...[]string) error {
	p.stmts = make(map[string]*sql.Stmt)
	for _, list := range lists {
		for _, q := range list {
			st, err := p.db.PrepareContext(ctx, q)
			if err != nil {
				return fmt.Errorf("prepare %.40q: %w", q, err)
			}
			p.stmts[q] = st
		}
	}
	return nil
}

// close closes the statements and the pool; a pool never opened is no
// error.
func (p *pool) close() error {
	if p.db == nil {
		return nil
	}
	var errs []error
	for _, st := range p.stmts {
		errs = append(errs, st.Close())
	}
	return errors.Join(append(errs, p.db.Close())...)
}
