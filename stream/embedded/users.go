package embedded

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// ReadUsers reads SASL users, one "MECHANISM USER PASSWORD" a line
// (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512, in any case), from r, the file
// name; blank lines and lines starting with # are skipped. A file without
// users is an error, and errors name the file and line.
func ReadUsers(r io.Reader, name string) ([]User, error) {
	var users []User
	s := bufio.NewScanner(r)
	for line := 1; s.Scan(); line++ {
		fields := strings.Fields(s.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		mech := strings.ToUpper(fields[0])
		if len(fields) != 3 || (mech != "PLAIN" && mech != "SCRAM-SHA-256" && mech != "SCRAM-SHA-512") {
			return nil, fmt.Errorf("%s:%d: want \"MECHANISM USER PASSWORD\" with PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512", name, line)
		}
		users = append(users, User{Mechanism: mech, Name: fields[1], Password: fields[2]})
	}
	if err := s.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(users) == 0 {
		return nil, fmt.Errorf("%s: no users in it", name)
	}
	return users, nil
}
