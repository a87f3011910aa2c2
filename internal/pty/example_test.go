package pty_test

import (
	"context"
	"fmt"
	"io"

	"github.com/shellport/shellport/internal/pty"
)

func Example() {
	ctx := context.Background()
	p, err := pty.Start(ctx, pty.Options{
		Path: "bash",
		Args: []string{"--noprofile", "--norc", "-c", "test -t 1 && echo on a terminal; exit 7"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	out, _ := io.ReadAll(p) // ends at EOF once the program has exited
	st, _ := p.Wait(ctx)
	fmt.Printf("%q, exit code %d\n", out, st.Code)
	// Output: "on a terminal\n", exit code 7
}
