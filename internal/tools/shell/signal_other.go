//go:build !unix

package shell

// signalNumber is 0 where signals have no numbers.
func signalNumber(string) int { return 0 }
