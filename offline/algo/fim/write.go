package fim

import (
	"io"
	"strconv"
)

// WriteItemsets returns a sink for Mine that writes each itemset to w as a
// line of the FIMI output format: its items separated by spaces, then its
// support in parentheses ("3 7 12 (5)"). w should be buffered.
func WriteItemsets(w io.Writer) func(items []int32, support int) error {
	var line []byte
	return func(items []int32, support int) error {
		line = line[:0]
		for k, it := range items {
			if k > 0 {
				line = append(line, ' ')
			}
			line = strconv.AppendInt(line, int64(it), 10)
		}
		line = append(line, " ("...)
		line = strconv.AppendInt(line, int64(support), 10)
		line = append(line, ")\n"...)
		_, err := w.Write(line)
		return err
	}
}
