//go:build linux && cgo

package spawnhelper

// NarrowStarted is how many children were started narrowly so far.
func NarrowStarted() int {
	narrow.mu.Lock()
	defer narrow.mu.Unlock()
	return narrow.started
}

// SetNarrow turns narrow spawns on or off and returns a function that
// restores the setting.
func SetNarrow(on bool) (restore func()) {
	narrow.mu.Lock()
	defer narrow.mu.Unlock()
	old := narrow.off
	narrow.off = !on
	return func() {
		narrow.mu.Lock()
		defer narrow.mu.Unlock()
		narrow.off = old
	}
}

// NarrowPair is the narrow spawn's socket pair: the sending end and the
// receiving one (-1 before the first narrow start).
func NarrowPair() (send, recv int) {
	narrow.mu.Lock()
	defer narrow.mu.Unlock()
	return narrow.send, narrow.recv
}

// NarrowOff reports whether narrow starts were turned off for good.
func NarrowOff() bool {
	narrow.mu.Lock()
	defer narrow.mu.Unlock()
	return narrow.off
}
