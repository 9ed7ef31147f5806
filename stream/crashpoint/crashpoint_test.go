package crashpoint

import (
	"bytes"
	"strings"
	"testing"
)

// TestParse: a stage of the pipeline, a positive N and an optional
// positive pause; anything else is refused with what is wanted.
func TestParse(t *testing.T) {
	f := func(s, wantErr string) {
		t.Helper()
		_, err := Parse(s, nil)
		switch {
		case wantErr == "" && err != nil:
			t.Errorf("%q: %v", s, err)
		case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
			t.Errorf("%q: error %v, want one containing %q", s, err, wantErr)
		}
	}
	f("decided:1", "")
	f("decided:2:pause=1s", "")
	f("nosuchstage:1", "stage one of")
	f("decided", "stage one of")
	f("decided:0", "positive integer")
	f("decided:x", "positive integer")
	f("decided:1:pause=0s", "positive duration")
	f("decided:1:wait=1s", "positive duration")
}

// TestPause: the N-th batch through the stage pauses, once, and says so;
// other stages and batches pass.
func TestPause(t *testing.T) {
	var out bytes.Buffer
	p, err := Parse("decided:2:pause=1ms", &out)
	if err != nil {
		t.Fatal(err)
	}
	for _, stage := range []string{"decided", "staged", "decided", "decided"} {
		if err := p.AfterStage(stage, 0); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Count(out.String(), "crash point decided:2: pausing"); got != 1 {
		t.Errorf("paused %d times, want once: %q", got, out.String())
	}
}
