package ledger

// AppendersHeld is how many appenders the store keeps to close.
func AppendersHeld(s *Store) int {
	s.viewMu.Lock()
	defer s.viewMu.Unlock()
	return len(s.appenderList)
}
