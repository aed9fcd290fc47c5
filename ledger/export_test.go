package ledger

// AppendersHeld is how many appenders the store keeps to close.
func AppendersHeld(s *Store) int {
	s.viewMu.Lock()
	defer s.viewMu.Unlock()
	return len(s.appenderList)
}

// ChallengeTail reports the size of a's challenge tail: the challenges it
// holds, and the length of its queue (pruned entries not yet compacted
// away included).
func ChallengeTail(a *Appender) (challenges, queue int) {
	a.tail.mu.Lock()
	defer a.tail.mu.Unlock()
	return len(a.tail.seq), len(a.tail.fifo)
}
