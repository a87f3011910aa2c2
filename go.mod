module github.com/shellport/shellport

go 1.26.0

require (
	github.com/creack/pty v1.1.24
	golang.org/x/sys v0.50.0
)
