//go:build linux

package spawnhelper

// SetSweepScanAll makes the supervisors started from now on scan all of
// /proc for their descendants instead of walking their own subtree (the
// fallback for kernels without children files), and returns a function
// that restores the default.
func SetSweepScanAll(on bool) (restore func()) {
	old := sweepScanAll.Swap(on)
	return func() { sweepScanAll.Store(old) }
}
