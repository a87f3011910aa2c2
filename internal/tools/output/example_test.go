package output_test

import (
	"fmt"
	"os"
	"time"

	"github.com/shellport/shellport/internal/tools/output"
)

func Example() {
	// A tool writes each stream of a command into a capture as it arrives…
	stdout := output.NewCapture(output.Options{MaxChars: 1000, SpillDir: os.TempDir()})
	stderr := output.NewCapture(output.Options{MaxChars: 1000, SpillDir: os.TempDir()})
	fmt.Fprint(stdout, "compiling\n")
	fmt.Fprint(stderr, "main.go:3: undefined: x\n")
	// …then cuts them to the budget together and says how the command ended.
	r := output.Result{
		Output:   output.Finish(1000, output.Section{Capture: stdout}, output.Section{Label: "[stderr]", Capture: stderr}),
		ExitCode: output.Code(2),
	}
	res := r.ToolResult()
	fmt.Println(res.Text)
	fmt.Println(res.Structured["exitCode"], res.Structured["spillPath"])
	// Output:
	// compiling
	// [stderr]
	// main.go:3: undefined: x
	// [exit code: 2]
	// 2 <nil>
}

func ExampleParseStatus() {
	st := output.ParseStatus("partial output\n[timed out after 500 ms]\n[killed by signal: SIGTERM]")
	fmt.Println(st.TimedOut, st.Timeout == 500*time.Millisecond, st.Signal, st.ExitCode)
	fmt.Printf("%q\n", st.Body)
	// Output:
	// true true SIGTERM -1
	// "partial output\n"
}
