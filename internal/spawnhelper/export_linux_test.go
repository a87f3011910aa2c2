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

// EncodeSpec is encodeSpec: s as a spare's spec, the number of descriptors
// sent with it, and whether s can be one.
func EncodeSpec(s Spec, scanAll bool) ([]byte, int, bool) {
	msg, files, ok := encodeSpec(s, scanAll)
	return msg, len(files), ok
}
