package clickhouse

import (
	"bytes"
	"encoding/binary"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/clickgen/clickgen/generator/clickhouse/chtype"
)

// TestRowValues: Row returns each row's bytes and column ends, whatever the chunks the
// answer arrives in (one byte at a time here) and however long a value is (a value larger
// than the read buffer); a row cut short is an error.
func TestRowValues(t *testing.T) {
	types := []*chtype.Type{chtype.MustParse("UInt64"), chtype.MustParse("LowCardinality(String)"),
		chtype.MustParse("Array(Nullable(String))"), chtype.MustParse("Decimal(18, 2)")}
	str := func(dst []byte, s string) []byte { return append(binary.AppendUvarint(dst, uint64(len(s))), s...) }
	var rows [][]byte
	var ends [][]int
	for i, s := range []string{"a", strings.Repeat("ж", 300<<10), ""} {
		var r []byte
		var e []int
		r = binary.LittleEndian.AppendUint64(r, uint64(i))
		e = append(e, len(r))
		r = str(r, s)
		e = append(e, len(r))
		r = append(r, 2, 1, 0)
		r = str(r, s)
		e = append(e, len(r))
		r = binary.LittleEndian.AppendUint64(r, 12345)
		e = append(e, len(r))
		rows, ends = append(rows, r), append(ends, e)
	}
	body := bytes.Join(rows, nil)
	rd := newRows(io.NopCloser(iotest.OneByteReader(bytes.NewReader(body))), func(err error) error { return err })
	var gotEnds []int
	for i := range rows {
		more, err := rd.More()
		if err != nil || !more {
			t.Fatalf("row %d: more %v, %v", i, more, err)
		}
		var row []byte
		row, gotEnds, err = rd.Row(types, gotEnds)
		if err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		if !bytes.Equal(row, rows[i]) || len(gotEnds) != len(ends[i]) {
			t.Fatalf("row %d: %d bytes, ends %v; want %d, %v", i, len(row), gotEnds, len(rows[i]), ends[i])
		}
		for k := range ends[i] {
			if gotEnds[k] != ends[i][k] {
				t.Fatalf("row %d: ends %v, want %v", i, gotEnds, ends[i])
			}
		}
	}
	if err := rd.End(); err != nil {
		t.Fatal(err)
	}

	cut := newRows(io.NopCloser(bytes.NewReader(body[:len(rows[0])+20])), func(err error) error { return err })
	if _, _, err := cut.Row(types, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := cut.Row(types, nil); err == nil {
		t.Error("a row cut short: no error")
	}
}
