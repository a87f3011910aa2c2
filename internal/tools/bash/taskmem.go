package bash

import (
	"io"
	"os"
	"sort"
	"sync"
)

// taskMemoryBudget bounds the unread output that all background tasks of a
// runtime keep in memory together. Past it, tasks' unread output leaves
// memory, finished tasks first (the earliest finished first), then running
// ones (the largest first), until less than three quarters of the budget
// is in use; bash_output then reads it back from the task's log file,
// which holds all of it.
const taskMemoryBudget = 32 << 20

// taskMemory accounts for the memory tasks' unread output holds.
type taskMemory struct {
	mu        sync.Mutex
	used      int64
	nfinished int64
}

func (m *taskMemory) free(n int64) {
	if n == 0 {
		return
	}
	m.mu.Lock()
	m.used -= n
	m.mu.Unlock()
}

func (m *taskMemory) inUse() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.used
}

// finished numbers the tasks in the order they finish.
func (m *taskMemory) finished() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nfinished++
	return m.nfinished
}

// charge records n more bytes held and, past the budget, moves tasks'
// unread output out of memory.
func (e *executor) charge(n int64) {
	e.mem.mu.Lock()
	e.mem.used += n
	over := e.mem.used > taskMemoryBudget
	e.mem.mu.Unlock()
	if !over {
		return
	}
	e.mu.Lock()
	all := make([]*task, 0, len(e.tasks))
	for _, t := range e.tasks {
		all = append(all, t)
	}
	e.mu.Unlock()
	type candidate struct {
		t          *task
		fin, bytes int64
	}
	var cands []candidate
	for _, t := range all {
		t.mu.Lock()
		if t.held > 0 {
			fin := int64(0)
			if t.finished {
				fin = t.finishN
			}
			cands = append(cands, candidate{t, fin, t.held})
		}
		t.mu.Unlock()
	}
	sort.Slice(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		switch {
		case (a.fin > 0) != (b.fin > 0):
			return a.fin > 0
		case a.fin > 0:
			return a.fin < b.fin
		}
		return a.bytes > b.bytes
	})
	for _, c := range cands {
		if e.mem.inUse() <= taskMemoryBudget*3/4 {
			return
		}
		e.mem.free(c.t.moveOut())
	}
}

// moveOut takes the task's unread output out of memory and returns the
// bytes freed. With a sound log, later reads come from the log; without
// one, the output is dropped and the next read says so.
func (t *task) moveOut() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	freed := t.held
	if freed == 0 {
		return 0
	}
	if t.log != nil && t.log.Sound() {
		t.moved = true
	} else {
		t.dropped = true
	}
	t.unread = ring{}
	t.held = 0
	return freed
}

// readLog reads n bytes of path from off; fewer when the log is shorter
// (it stopped at its size limit) or cannot be read.
func readLog(path string, off, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, n)
	m, err := f.ReadAt(buf, off)
	if err == io.EOF {
		err = nil
	}
	return buf[:m], err
}
