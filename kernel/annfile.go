package kernel

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"github.com/amem-dev/amem/index/hnsw"
	"github.com/amem-dev/amem/internal/mmap"
	"github.com/amem-dev/amem/lexindex"
)

// A namespace's approximate index is saved in Options.IndexDir so that
// reopening a large namespace reads its graph (seconds) instead of
// building it (minutes), and its full-text index beside it, so that the
// reopening need not read every note's text (and, in the same rows,
// vector) out of the store either. The files are caches of the store,
// never trusted over it: each names the feed number it reflects and the
// embedder of the namespace's vectors, and a load takes them only if
// those numbers are still within the feed (at or past its horizon, at or
// before its head) and the embedder is the namespace's; the load then
// catches them up with the feed and checks them against the store's
// notes (Space.go). Anything else and they are deleted, the namespace
// read in full and the index built afresh.
//
// The format of each: an 8-byte magic ("AMEMANN2" for the graph,
// "AMEMLEXH" for the full-text index), u64 feed number, u32 dimensions,
// u32 name length, the embedder's name, u32 CRC-32C of all of that, then
// hnsw.Index.WriteTo's or lexindex.Index.WriteTo's bytes (with their own
// checksums).
//
// Beside the graph, its float vectors (".vec", hnsw.Index.WriteFloatsTo's
// format, tagged with the graph's feed number) are memory-mapped rather
// than read, so that re-ranking reads a search's few candidates through
// the page cache and the namespace's vectors cost no heap (2 KB a note at
// 512-d). A graph is only used with its own float file: the feed numbers
// must be equal and every row must quantise to its node's code, else
// both are dropped and the index built afresh. "AMEMANN1" graphs, saved
// before there were float files, are rebuilt so.

const (
	annMagic = "AMEMANN2"
	// lexMagic changes when what amem keeps of a note in its full-text
	// index does, so that a file an older amem saved is rebuilt, never
	// read as this one's: "AMEMLEXF" files lack the dialogue-turn trait
	// (conversation.Turn); "AMEMLEXG" files count the context's quotation
	// of the content a second time (lexindex's quoteRun).
	lexMagic = "AMEMLEXH"
)

var annCRC = crc32.MakeTable(crc32.Castagnoli)

// errStaleIndex is a saved index the store contradicts.
var errStaleIndex = errors.New("saved index does not match the store")

// savedPath is the namespace's file of a kind (ext ".hnsw" or ".lex"):
// named by a hash, as a namespace name may hold anything a file name may
// not.
func savedPath(dir, ns, ext string) string {
	sum := sha256.Sum256([]byte(ns))
	return filepath.Join(dir, hex.EncodeToString(sum[:12])+ext)
}

// The kinds of saved file, by their extensions.
const (
	annExt = ".hnsw"
	vecExt = ".vec"
	lexExt = ".lex"
)

func annPath(dir, ns string) string { return savedPath(dir, ns, annExt) }
func vecPath(dir, ns string) string { return savedPath(dir, ns, vecExt) }
func lexPath(dir, ns string) string { return savedPath(dir, ns, lexExt) }

// savedHeader encodes a file's header, its checksum included.
func savedHeader(magic string, seq int64, embedder string, dims int) []byte {
	b := []byte(magic)
	b = binary.LittleEndian.AppendUint64(b, uint64(seq))
	b = binary.LittleEndian.AppendUint32(b, uint32(dims))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(embedder)))
	b = append(b, embedder...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, annCRC))
}

// saveANN writes x, reflecting feed number seq, to the namespace's file,
// and its float vectors, if it keeps them, to the float file (first, so
// that a crash between the two leaves a new float file beside an old
// graph: a pair that the feed numbers tell apart). x is only read: the
// caller holds at least a read lock, or owns x.
func saveANN(dir, ns string, seq int64, embedder string, dims int, x *hnsw.Index) error {
	if x.KeepsFloats() {
		err := saveRaw(vecPath(dir, ns), func(w io.Writer) error {
			_, err := x.WriteFloatsTo(w, seq)
			return err
		})
		if err != nil {
			return err
		}
	}
	return saveFile(annPath(dir, ns), annMagic, seq, embedder, dims, x)
}

// attachFloats maps the namespace's float file and checks it against x,
// which reflects feed number seq, for the caller to hand to x.UseFloats.
// x is only read. A missing, damaged or stale file is errStaleIndex.
func attachFloats(dir, ns string, seq int64, x *hnsw.Index) (*hnsw.FloatFile, error) {
	m, err := mmap.Open(vecPath(dir, ns))
	if err != nil {
		return nil, fmt.Errorf("%w: float vectors: %v", errStaleIndex, err)
	}
	f, err := x.CheckFloats(m, seq)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errStaleIndex, err)
	}
	return f, nil
}

// saveLex writes the full-text index lex, reflecting feed number seq,
// to the namespace's file, the caller holding at least a read lock.
func saveLex(dir, ns string, seq int64, embedder string, dims int, lex *lexindex.Index) error {
	return saveFile(lexPath(dir, ns), lexMagic, seq, embedder, dims, lex)
}

// saveFile writes a header and body to path: to a temporary file in the
// same directory, synced, then renamed over it, so that a crash leaves
// the old file or the new one, never half of one.
func saveFile(path, magic string, seq int64, embedder string, dims int, body io.WriterTo) error {
	return saveRaw(path, func(w io.Writer) error {
		if _, err := w.Write(savedHeader(magic, seq, embedder, dims)); err != nil {
			return err
		}
		_, err := body.WriteTo(w)
		return err
	})
}

// saveRaw writes what write writes to path, atomically as saveFile.
func saveRaw(path string, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save index %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, ".tmp-*"+filepath.Ext(path))
	if err != nil {
		return fmt.Errorf("save index %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			err = fmt.Errorf("save index %s: %w", path, err)
		}
	}()
	if err := write(f); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // the rename's durability; where a directory can't be synced, the file is only a cache
		d.Close()
	}
	return nil
}

// loadANN reads the namespace's graph: the index and the feed number it
// reflects. A missing file is os.ErrNotExist; a damaged one, or one of
// another embedder, is errStaleIndex or hnsw.ErrCorrupt.
func loadANN(dir, ns, embedder string, dims int, opts *hnsw.Options) (*hnsw.Index, int64, error) {
	var x *hnsw.Index
	seq, err := loadFile(annPath(dir, ns), annMagic, embedder, dims, func(r io.Reader) error {
		var err error
		if x, err = hnsw.Read(r, opts); err != nil {
			return err
		}
		if x.Dim() != dims {
			return fmt.Errorf("%w: %d dimensions in the graph, %d in the header", hnsw.ErrCorrupt, x.Dim(), dims)
		}
		return nil
	})
	if err != nil {
		return nil, seq, err
	}
	f, err := attachFloats(dir, ns, seq, x)
	if err != nil {
		return nil, seq, err
	}
	x.UseFloats(f)
	return x, seq, nil
}

// loadLex reads the namespace's full-text index and the feed number it
// reflects; errors as loadANN's (lexindex.ErrCorrupt for a damaged one).
func loadLex(dir, ns, embedder string, dims int) (*lexindex.Index, int64, error) {
	var lex *lexindex.Index
	seq, err := loadFile(lexPath(dir, ns), lexMagic, embedder, dims, func(r io.Reader) error {
		var err error
		lex, err = lexindex.Read(r)
		return err
	})
	return lex, seq, err
}

// loadFile checks path's header and has read decode the body; it
// returns the header's feed number.
func loadFile(path, magic, embedder string, dims int, read func(io.Reader) error) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	fixed := make([]byte, len(magic)+16)
	if _, err := io.ReadFull(r, fixed); err != nil || string(fixed[:len(magic)]) != magic {
		return 0, fmt.Errorf("%w: %s is not an index file", errStaleIndex, path)
	}
	seq := int64(binary.LittleEndian.Uint64(fixed[len(magic):]))
	fileDims := int(binary.LittleEndian.Uint32(fixed[len(magic)+8:]))
	nameLen := binary.LittleEndian.Uint32(fixed[len(magic)+12:])
	if nameLen > 4096 {
		return 0, fmt.Errorf("%w: %s: header out of range", errStaleIndex, path)
	}
	rest := make([]byte, nameLen+4)
	if _, err := io.ReadFull(r, rest); err != nil {
		return 0, fmt.Errorf("%w: %s: truncated header", errStaleIndex, path)
	}
	name := string(rest[:nameLen])
	if got := savedHeader(magic, seq, name, fileDims); string(got[len(got)-4:]) != string(rest[nameLen:]) {
		return 0, fmt.Errorf("%w: %s: header checksum mismatch", errStaleIndex, path)
	}
	if name != embedder || fileDims != dims {
		return 0, fmt.Errorf("%w: vectors of %s (%d), the namespace's are %s (%d)", errStaleIndex, name, fileDims, embedder, dims)
	}
	if err := read(r); err != nil {
		return 0, err
	}
	return seq, nil
}
