package sandbox

import (
	"fmt"
	"strings"
)

// SandboxExec is the one sandbox-exec the macOS backend runs: by absolute
// path, never from PATH, so a program planted earlier in PATH cannot stand
// in for it.
const SandboxExec = "/usr/bin/sandbox-exec"

// SeatbeltProfile is the Seatbelt profile (SBPL) of a policy, for
// sandbox-exec -p, and the -D parameters it refers to: paths travel as
// parameters, never spliced into the profile's text. private are
// directories whose existing files the program may open for writing (the
// persistent shell's private directory). It is a pure function of its
// inputs, so it is tested on every platform.
//
// What it allows: running and forking programs; signals and process
// inspection within the same sandbox only; reading sysctls, preferences
// and user records (what libc needs); reading every file; the terminal
// (pseudo-terminals opened before the sandbox was entered included) and
// /dev/null; changing files under the writable directories, except under
// protected paths; AF_UNIX sockets; and the network only when the policy
// has it. Everything else is denied.
func SeatbeltProfile(p *Policy, private []string) (profile string, params []string) {
	var b strings.Builder
	param := func(prefix string, i int, path string) string {
		name := fmt.Sprintf("%s_%d", prefix, i)
		params = append(params, fmt.Sprintf("-D%s=%s", name, path))
		return fmt.Sprintf("(param %q)", name)
	}
	b.WriteString(`(version 1)
(deny default)
(allow process-exec process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow sysctl-read)
(allow user-preference-read)
(allow mach-lookup (global-name "com.apple.system.opendirectoryd.libinfo"))
(allow ipc-posix-sem ipc-posix-shm)
(allow file-read*)
(allow pseudo-tty)
(allow file-read* file-write* file-ioctl
  (literal "/dev/ptmx")
  (literal "/dev/tty")
  (regex #"^/dev/ttys[0-9]+$"))
(allow file-write-data
  (literal "/dev/null")
  (regex #"^/dev/fd/[0-9]+$"))
`)
	if p.mode == ModeWorkspaceWrite && len(p.writable) > 0 {
		var roots, except []string
		for i, w := range p.writable {
			roots = append(roots, "(subpath "+param("WRITABLE", i, w)+")")
		}
		for i, pr := range p.protected {
			except = append(except, "(require-not (subpath "+param("PROTECTED", i, pr)+"))")
		}
		if len(except) == 0 {
			fmt.Fprintf(&b, "(allow file-write*\n  %s)\n", strings.Join(roots, "\n  "))
		} else {
			fmt.Fprintf(&b, "(allow file-write*\n  (require-all\n    (require-any %s)\n    %s))\n", strings.Join(roots, " "), strings.Join(except, "\n    "))
		}
	}
	for i, d := range private {
		// Seatbelt matches the real path (/private/var/folders/…, not
		// /var/folders/…).
		fmt.Fprintf(&b, "(allow file-write-data (subpath %s))\n", param("PRIVATE", i, resolved(d)))
	}
	b.WriteString("(allow network* (local unix-socket))\n(allow network* (remote unix-socket))\n")
	if p.network {
		b.WriteString(`(allow network*)
(allow system-socket)
(allow mach-lookup
  (global-name "com.apple.dnssd.service")
  (global-name "com.apple.SystemConfiguration.configd")
  (global-name "com.apple.trustd.agent"))
`)
	}
	return b.String(), params
}

// seatbeltArgv is the argv prefix that runs a program under the profile.
func seatbeltArgv(p *Policy, private []string) []string {
	profile, params := SeatbeltProfile(p, private)
	argv := append([]string{SandboxExec, "-p", profile}, params...)
	return append(argv, "--")
}
