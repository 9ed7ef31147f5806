package embedded

import (
	"reflect"
	"strings"
	"testing"
)

// TestReadUsers: mechanisms in any case, comments and blank lines skipped;
// a malformed line or a file without users is an error naming the file.
func TestReadUsers(t *testing.T) {
	f := func(in string, want []User, wantErr string) {
		t.Helper()
		got, err := ReadUsers(strings.NewReader(in), "users.txt")
		switch {
		case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
			t.Errorf("ReadUsers(%q) = %v, want an error with %q", in, err, wantErr)
		case wantErr == "" && (err != nil || !reflect.DeepEqual(got, want)):
			t.Errorf("ReadUsers(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	f("# users\n\nplain alice secret\nSCRAM-SHA-512 bob pw\n",
		[]User{{"PLAIN", "alice", "secret"}, {"SCRAM-SHA-512", "bob", "pw"}}, "")
	f("PLAIN alice\n", nil, "users.txt:1: want")
	f("GSSAPI alice pw\n", nil, "users.txt:1: want")
	f("# none\n", nil, "users.txt: no users in it")
}
