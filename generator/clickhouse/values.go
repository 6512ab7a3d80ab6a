package clickhouse

import (
	"fmt"

	"github.com/clickgen/clickgen/generator/clickhouse/chtype"
)

// maxRow bounds one row of [Rows.Row]: verify holds a row whole to compare it, and a store
// whose row is larger (a hostile one) is refused rather than followed.
const maxRow = 128 << 20

// Row reads the next row, whose columns have types, as its RowBinary bytes: the row, and in
// ends the offset within it where each column's value ends (appended to ends[:0]). The bytes
// are the answer's own, valid until the next read; two values of one type are equal exactly
// when their bytes are.
func (r *Rows) Row(types []*chtype.Type, ends []int) (row []byte, _ []int, err error) {
	ends = ends[:0]
	off := 0
	for _, t := range types {
		for {
			n, need, err := t.Size(r.buf[r.pos+off : r.end])
			if err != nil {
				r.err = r.fail(fmt.Errorf("clickhouse: %w", err))
				return nil, ends, r.err
			}
			if n > 0 {
				off += n
				break
			}
			if off+need > maxRow {
				r.err = r.fail(fmt.Errorf("clickhouse: a row of more than %d MB: larger than verify reads", maxRow>>20))
				return nil, ends, r.err
			}
			// More of the row is needed: fill keeps it from r.pos on, however it moves.
			if err := r.fill(max(off+need, r.end-r.pos+1)); err != nil {
				return nil, ends, err
			}
		}
		ends = append(ends, off)
	}
	row = r.buf[r.pos : r.pos+off]
	r.pos += off
	return row, ends, nil
}
