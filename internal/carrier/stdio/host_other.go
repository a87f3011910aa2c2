//go:build unix && !linux

package stdio

import "os"

// watchParent closes the returned channel when the process that started
// this one exits; here by polling getppid.
func watchParent() <-chan struct{} {
	gone := make(chan struct{})
	if ppid := os.Getppid(); ppid > 1 {
		go pollParent(ppid, gone)
	}
	return gone
}
