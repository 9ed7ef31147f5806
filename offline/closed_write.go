package offline

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
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

// WriteFile writes the sets to a new file at path: as CSV (WriteCSV) when
// path ends in .csv, else as JSON lines (WriteJSON).
func (res *ClosedResult) WriteFile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	if strings.HasSuffix(path, ".csv") {
		err = res.WriteCSV(bw)
	} else {
		err = res.WriteJSON(bw)
	}
	if err == nil {
		err = bw.Flush()
	}
	return errors.Join(err, f.Close())
}

// WriteSummary writes two lines: the fingerprint context the sets were
// mined from, and how many sets of o's kind were mined and how far mining got.
func (res *ClosedResult) WriteSummary(w io.Writer, o ClosedOptions) {
	cx := res.Context
	fmt.Fprintf(w, "context: %d fingerprints of %d documents, %d shared by two or more (%d distinct document sets), %d documents after pruning; %d pass(es)\n",
		cx.Fingerprints, len(res.Seqs), cx.Shared, cx.Distinct, cx.Documents, cx.Passes)
	kind := "closed"
	if o.Maximal {
		kind = "maximal"
	}
	state := "complete"
	if !res.Mining.Complete {
		state = "incomplete, stopped: " + res.Mining.Stopped
	}
	fmt.Fprintf(w, "%s sets of >= 2 documents sharing >= %d fingerprints: %d (%s); %d of %d components mined in %.3fs\n",
		kind, o.MinCommon, len(res.Sets), state, res.ComponentsMined, res.Components, res.Mining.Elapsed.Seconds())
}
