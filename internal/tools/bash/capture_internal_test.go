package bash

import "testing"

func TestRingKeepsNewest(t *testing.T) {
	r := ring{max: 5}
	var all []byte
	for _, chunk := range []string{"ab", "cde", "f", "ghijklm", "n", "", "opq"} {
		r.write([]byte(chunk))
		all = append(all, chunk...)
		want := all
		if len(want) > 5 {
			want = want[len(want)-5:]
		}
		if got := string(r.bytes()); got != string(want) {
			t.Fatalf("after %q: %q, want %q", chunk, got, want)
		}
	}
	r.reset()
	r.write([]byte("xy"))
	if got := string(r.bytes()); got != "xy" {
		t.Fatalf("after reset: %q", got)
	}
}

func TestUTF8Helpers(t *testing.T) {
	e := []byte("aé€😀")
	for n, want := range map[int64]string{0: "", 1: "😀", 2: "€😀", 4: "aé€😀", 9: "aé€😀"} {
		if got := string(tailChars(e, n)); got != want {
			t.Errorf("tailChars(%d) = %q, want %q", n, got, want)
		}
	}
	if got := string(tailChars(e[2:], 9)); got != "€😀" {
		t.Errorf("orphan continuation bytes kept: %q", got)
	}
	for i, want := range []int{0, 0, 1, 0, 1, 2, 0, 1, 2, 3, 0} {
		if got := incompleteSuffix(e[:i]); got != want {
			t.Errorf("incompleteSuffix(%q) = %d, want %d", e[:i], got, want)
		}
	}
}
