// Package sqlstore holds what package sqlite and package postgres share
// beneath their SQL: how Go values become column values and back, the
// driver-independent steps of decoding a note or a version, the merge of
// tombstones into the change feed, the health verdict's bookkeeping and
// the count of running transactions that Close waits on.
//
// The two stores must hold and return exactly the same values, so these
// steps live once here rather than twice in near copies that could drift.
// What differs between the drivers stays with each: SQL text and its
// dialect, scanning (database/sql's and pgx's null and byte types), and
// the mapping of driver errors to amem errors.
package sqlstore
