package amem

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
)

// A namespace's approximate index is saved in Options.IndexDir so that
// reopening a large namespace reads its graph (seconds) instead of
// building it (minutes). The file is a cache of the store, never trusted
// over it: it names the feed number it reflects and the embedder of its
// vectors, and a load takes it only if that number is still within the
// feed (at or past its horizon, at or before its head) and the embedder
// is the namespace's; the load then catches it up with the feed and
// checks it holds exactly the store's notes. Anything else and it is
// deleted and the index built afresh.
//
// The format: magic "AMEMANN1", u64 feed number, u32 dimensions, u32
// name length, the embedder's name, u32 CRC-32C of all of that, then
// hnsw.Index.WriteTo's bytes (with their own checksums).

const annMagic = "AMEMANN1"

var annCRC = crc32.MakeTable(crc32.Castagnoli)

// errStaleIndex is a saved index the store contradicts.
var errStaleIndex = errors.New("saved index does not match the store")

// annPath is the namespace's file: named by a hash, as a namespace name
// may hold anything a file name may not.
func annPath(dir, ns string) string {
	sum := sha256.Sum256([]byte(ns))
	return filepath.Join(dir, hex.EncodeToString(sum[:12])+".hnsw")
}

// annHeader encodes the header, its checksum included.
func annHeader(seq int64, embedder string, dims int) []byte {
	b := []byte(annMagic)
	b = binary.LittleEndian.AppendUint64(b, uint64(seq))
	b = binary.LittleEndian.AppendUint32(b, uint32(dims))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(embedder)))
	b = append(b, embedder...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, annCRC))
}

// saveANN writes x, reflecting feed number seq, to the namespace's file:
// to a temporary file in the same directory, synced, then renamed over
// it, so that a crash leaves the old file or the new one, never half of
// one. x is only read: the caller holds at least a read lock, or owns x.
func saveANN(dir, ns string, seq int64, embedder string, dims int, x *hnsw.Index) (err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save index of %s: %w", ns, err)
	}
	f, err := os.CreateTemp(dir, ".tmp-*.hnsw")
	if err != nil {
		return fmt.Errorf("save index of %s: %w", ns, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			err = fmt.Errorf("save index of %s: %w", ns, err)
		}
	}()
	if _, err := f.Write(annHeader(seq, embedder, dims)); err != nil {
		return err
	}
	if _, err := x.WriteTo(f); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), annPath(dir, ns)); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // the rename's durability; where a directory can't be synced, the file is only a cache
		d.Close()
	}
	return nil
}

// loadANN reads the namespace's file: the index and the feed number it
// reflects. A missing file is os.ErrNotExist; a damaged one, or one of
// another embedder, is errStaleIndex or hnsw.ErrCorrupt.
func loadANN(dir, ns, embedder string, dims int) (*hnsw.Index, int64, error) {
	f, err := os.Open(annPath(dir, ns))
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	fixed := make([]byte, len(annMagic)+16)
	if _, err := io.ReadFull(r, fixed); err != nil || string(fixed[:len(annMagic)]) != annMagic {
		return nil, 0, fmt.Errorf("%w: not an index file", hnsw.ErrCorrupt)
	}
	seq := int64(binary.LittleEndian.Uint64(fixed[len(annMagic):]))
	fileDims := int(binary.LittleEndian.Uint32(fixed[len(annMagic)+8:]))
	nameLen := binary.LittleEndian.Uint32(fixed[len(annMagic)+12:])
	if nameLen > 4096 {
		return nil, 0, fmt.Errorf("%w: header out of range", hnsw.ErrCorrupt)
	}
	rest := make([]byte, nameLen+4)
	if _, err := io.ReadFull(r, rest); err != nil {
		return nil, 0, fmt.Errorf("%w: truncated header", hnsw.ErrCorrupt)
	}
	name := string(rest[:nameLen])
	if got := annHeader(seq, name, fileDims); string(got[len(got)-4:]) != string(rest[nameLen:]) {
		return nil, 0, fmt.Errorf("%w: header checksum mismatch", hnsw.ErrCorrupt)
	}
	if name != embedder || fileDims != dims {
		return nil, 0, fmt.Errorf("%w: vectors of %s (%d), the namespace's are %s (%d)", errStaleIndex, name, fileDims, embedder, dims)
	}
	x, err := hnsw.Read(r, &annOptions)
	if err != nil {
		return nil, 0, err
	}
	if x.Dim() != dims {
		return nil, 0, fmt.Errorf("%w: %d dimensions in the graph, %d in the header", hnsw.ErrCorrupt, x.Dim(), dims)
	}
	return x, seq, nil
}
