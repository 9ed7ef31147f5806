package offline

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"
)

// closedSetJSON is one line of WriteJSON.
type closedSetJSON struct {
	Common  int      `json:"common"`
	Size    int      `json:"size"`
	Members []string `json:"members"`
	Seqs    []uint64 `json:"seqs"`
}

// WriteCSV writes the sets as CSV with a header: set, common, size, seq, id,
// url — one row per member.
func (res *ClosedResult) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"set", "common", "size", "seq", "id", "url"})
	for k, s := range res.Sets {
		for _, u := range s.Members {
			cw.Write([]string{strconv.Itoa(k), strconv.Itoa(s.Common), strconv.Itoa(len(s.Members)),
				strconv.FormatUint(res.Seqs[u], 10), res.IDs[u], res.URLs[u]})
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteJSON writes the sets as JSON lines, one set a line: common, size,
// members (ids) and seqs.
func (res *ClosedResult) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	for _, s := range res.Sets {
		line := closedSetJSON{Common: s.Common, Size: len(s.Members)}
		for _, u := range s.Members {
			line.Members, line.Seqs = append(line.Members, res.IDs[u]), append(line.Seqs, res.Seqs[u])
		}
		if err := enc.Encode(line); err != nil {
			return err
		}
	}
	return nil
}
