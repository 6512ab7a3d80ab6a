package testenv

import "runtime"

// LiveHeap is the bytes of live heap objects after two full collections: the first moves what
// sync.Pools hold (which earlier tests fill) to their victim caches, the second frees it. The
// memory tests bound bytes with it, never time.
func LiveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
