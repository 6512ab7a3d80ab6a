package store

// SetEarlyBudget sets the memory the early reads hold rows in, and the size of its blocks,
// until the returned function restores them.
func SetEarlyBudget(budget, chunk int) (restore func()) {
	b, c := earlyBudget, heldChunk
	earlyBudget, heldChunk = budget, chunk
	return func() { earlyBudget, heldChunk = b, c }
}

// ShardErr is how the error of a read of table through cluster cl is told.
var ShardErr = shardErr

// SetPlanScale sets the largest scale whose days are planned from one model, until the
// returned function restores it.
func SetPlanScale(scale float64) (restore func()) {
	s := planScale
	planScale = scale
	return func() { planScale = s }
}

// SetMemoryHook calls f where the check's memory peaks ("judge", "walked"; see memoryHook)
// until the returned function restores the hook.
func SetMemoryHook(f func(stage string)) (restore func()) {
	h := memoryHook
	memoryHook = f
	return func() { memoryHook = h }
}
