//go:build linux

package spawnhelper

import (
	"bytes"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// inherited is what a program inherits from the process that starts it
// and a spec does not carry: the umask, the user and group ids (real,
// effective, saved, file system), the supplementary groups, the
// inheritable, bounding and ambient capabilities (exec derives the others
// from them and the ids), no_new_privs, the seccomp mode and filters, the CPUs and
// memory nodes allowed, the cgroups and the resource limits. A spare took them when it
// was exec'd; a host that changed them since (a Python host may: os.umask,
// os.setgroups, resource.setrlimit, a sandbox of its own) must not get them
// from it (issue 16).
type inherited struct {
	status string // the fields of statusFields, one a line, as written there
	cgroup string // /proc/.../cgroup
	limits [rlimitCount]unix.Rlimit
}

// statusFields are the fields of /proc/PID/status that hold what a child
// inherits. Umask is required (Linux 4.7); the others are compared when
// the kernel has them.
var statusFields = []string{"Umask", "Uid", "Gid", "Groups", "NoNewPrivs", "Seccomp", "Seccomp_filters",
	"CapInh", "CapBnd", "CapAmb", "Cpus_allowed", "Mems_allowed"}

// rlimitCount is the number of resource limits Linux has (RLIM_NLIMITS).
const rlimitCount = 16

// readInherited reads what pid's process would give a child: its status
// (umask, ids, groups, ...), its cgroups and its limits. pid 0 is the calling thread, whose
// status is read through /proc/thread-self (ids are per thread): no
// umask() set-and-restore, which would give a file another thread creates
// meanwhile the wrong mode. ok is false when something could not be read.
func readInherited(pid int) (in inherited, ok bool) {
	dir := "/proc/thread-self/"
	if pid != 0 {
		dir = "/proc/" + strconv.Itoa(pid) + "/"
	}
	status, err := os.ReadFile(dir + "status")
	if err != nil {
		return in, false
	}
	cgroup, err := os.ReadFile(dir + "cgroup")
	if err != nil {
		return in, false
	}
	in.cgroup = string(cgroup)
	var b []byte
	for _, name := range statusFields {
		i := bytes.Index(status, []byte("\n"+name+":"))
		if i < 0 {
			if name == "Umask" {
				return in, false
			}
			continue
		}
		line := status[i+1:]
		if j := bytes.IndexByte(line, '\n'); j >= 0 {
			line = line[:j+1]
		}
		b = append(b, line...)
	}
	in.status = string(b)
	for r := range in.limits {
		if err := unix.Prlimit(pid, r, nil, &in.limits[r]); err != nil {
			return in, false
		}
	}
	return in, true
}

// fits reports whether a spare that inherited sp gives its program what a
// supervisor exec'd now, from a process whose own are host, would give it.
// Everything is copied at exec except one limit: the Go runtime raises
// its process's soft limit on open files to the hard limit minus one, and
// a child it starts while the limit is still so gets the original back.
// That original is not known here, so while the host's limit is in that
// state no spare fits (an exec'd supervisor is exact).
func (sp inherited) fits(host inherited) bool {
	nofile := host.limits[unix.RLIMIT_NOFILE]
	if nofile.Cur != unix.RLIM_INFINITY && nofile.Cur+1 == nofile.Max {
		return false
	}
	return sp == host
}
