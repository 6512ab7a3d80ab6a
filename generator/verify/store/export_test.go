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
