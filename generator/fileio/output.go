package fileio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxLinks bounds the symbolic links Resolve follows, as the kernel bounds them (ELOOP).
const maxLinks = 40

// Target is the file a path leads to when it is written: the path itself, or where its
// symbolic links lead.
type Target struct {
	// Path is where the file is: the path given, with the symbolic links of its last
	// component followed (a dangling link to the file it would create). A file reached
	// through /proc/self/fd keeps the path the kernel names it by.
	Path string
	// Info is the existing file (links followed), or nil when writing creates it.
	Info fs.FileInfo
	// dir is the directory that will hold a file that does not exist yet (links and /proc
	// aliases followed by the kernel); name its name there.
	dir  fs.FileInfo
	name string
}

// Exists reports whether the target exists (writing replaces or writes into it) rather than
// being created.
func (t Target) Exists() bool { return t.Info != nil }

// Same reports whether t and u are one file: the same inode for existing files (hard links,
// /proc/self/fd and /proc/self/cwd aliases, links), the same directory and name for files
// to be created. An existing file and one to be created are never the same.
func (t Target) Same(u Target) bool {
	switch {
	case t.Exists() && u.Exists():
		return os.SameFile(t.Info, u.Info)
	case !t.Exists() && !u.Exists():
		return t.name == u.name && os.SameFile(t.dir, u.dir)
	}
	return false
}

// Resolve says which file writing path writes, without writing anything: the existing file
// path leads to, through any symbolic links and /proc aliases, or, for a file that does not
// exist yet, the directory that will hold it and its name there, a dangling symbolic link
// followed to the file it names (as the kernel's open with O_CREAT follows it). A path
// ending in a slash, a link loop, or a missing or unreadable directory is an error
// (*fs.PathError).
func Resolve(path string) (Target, error) {
	if path == "" {
		return Target{}, &fs.PathError{Op: "resolve", Path: path, Err: syscall.ENOENT}
	}
	if strings.HasSuffix(path, "/") {
		return Target{}, &fs.PathError{Op: "resolve", Path: path, Err: errors.New("ends in a slash: the path of a directory, not of a file")}
	}
	if fi, err := os.Stat(path); err == nil {
		// The kernel followed every link, /proc's included (/proc/self/fd/3 leads to the
		// file, whatever its name); the path of the file is where the links lead.
		t := Target{Path: path, Info: fi}
		if real, err := filepath.EvalSymlinks(path); err == nil {
			if again, err := os.Stat(real); err == nil && os.SameFile(again, fi) {
				t.Path = real
			}
		}
		return t, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Target{}, err
	}
	// Nothing there: follow the last component's links by hand to the name that will be
	// created; the kernel resolves the directories.
	p := path
	for range maxLinks {
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			dir, name := split(p)
			di, err := os.Stat(dir)
			if err != nil {
				return Target{}, &fs.PathError{Op: "resolve", Path: path, Err: fmt.Errorf("its directory %s: %w", dir, errors.Unwrap(err))}
			}
			if !di.IsDir() {
				return Target{}, &fs.PathError{Op: "resolve", Path: path, Err: fmt.Errorf("%s is not a directory", dir)}
			}
			return Target{Path: p, dir: di, name: name}, nil
		case err != nil:
			return Target{}, err
		case fi.Mode()&fs.ModeSymlink == 0:
			// It appeared since the Stat above: resolve again.
			return Resolve(p)
		}
		to, err := os.Readlink(p)
		if err != nil {
			return Target{}, err
		}
		if dir, _ := split(p); !filepath.IsAbs(to) && strings.Contains(p, "/") {
			to = dir + "/" + to
		}
		p = to
	}
	return Target{}, &fs.PathError{Op: "resolve", Path: path, Err: syscall.ELOOP}
}

// split cuts p into its directory and its last component as the kernel reads them: without
// cleaning (filepath.Dir of "link/../x" is ".", the kernel's is where link leads, then up).
func split(p string) (dir, name string) {
	i := strings.LastIndexByte(p, '/')
	switch {
	case i < 0:
		return ".", p
	case i == 0:
		return "/", p[1:]
	}
	return p[:i], p[i+1:]
}

// Use is one path a run reads or writes, named as its user gave it (a flag such as
// --catalog, an environment variable).
type Use struct {
	Name   string
	Path   string
	Output bool
}

// Input is a path the run reads, named name.
func Input(name, path string) Use { return Use{Name: name, Path: path} }

// Output is a path the run writes, named name.
func Output(name, path string) Use { return Use{Name: name, Path: path, Output: true} }

func (u Use) String() string { return u.Name + " " + u.Path }

// UseError is [Check]'s refusal of one use: its path cannot be resolved, or, for an output,
// it is a directory.
type UseError struct {
	Use Use
	Err error
}

func (e *UseError) Error() string { return e.Use.String() + ": " + e.Err.Error() }
func (e *UseError) Unwrap() error { return e.Err }

// ClashError is [Check]'s refusal of an output, Use, that is the same file (File, where its
// links lead) as Other, an input of the run or another of its outputs: writing it would
// destroy the input, or one output would overwrite the other.
type ClashError struct {
	Use, Other Use
	File       string
}

func (e *ClashError) Error() string {
	if !e.Other.Output {
		return fmt.Sprintf("%s: it is the file %s reads (%s): writing it would destroy an input of the run", e.Use, e.Other, e.File)
	}
	return fmt.Sprintf("%s: it is the file %s writes (%s): one output would overwrite the other", e.Use, e.Other, e.File)
}

// Check resolves the paths a run reads and writes ([Resolve]) and refuses, before anything is
// written: an output that cannot be resolved or is a directory (a *[UseError]); an output
// that is the same file as an input or as another output (a *[ClashError], naming the later
// of the two in uses). Uses with an empty path are skipped. A character device (/dev/null)
// may be written by several outputs and read too: nothing in it is destroyed. Inputs are
// not checked otherwise: reading them says what is wrong with them.
func Check(uses ...Use) error {
	type resolved struct {
		Use
		t Target
	}
	var seen []resolved
	for _, u := range uses {
		if u.Path == "" {
			continue
		}
		t, err := Resolve(u.Path)
		if err != nil {
			if !u.Output {
				continue // the read says so, in its own words
			}
			return &UseError{Use: u, Err: unwrapPath(err)}
		}
		if u.Output && t.Exists() && t.Info.IsDir() {
			return &UseError{Use: u, Err: errors.New("it is a directory")}
		}
		shared := t.Exists() && t.Info.Mode()&fs.ModeCharDevice != 0
		for _, o := range seen {
			if (u.Output || o.Output) && !shared && t.Same(o.t) {
				if !u.Output { // an input is never the one refused
					return &ClashError{Use: o.Use, Other: u, File: o.t.Path}
				}
				return &ClashError{Use: u, Other: o.Use, File: t.Path}
			}
		}
		seen = append(seen, resolved{u, t})
	}
	return nil
}

// unwrapPath is err without an *fs.PathError naming the path again.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
