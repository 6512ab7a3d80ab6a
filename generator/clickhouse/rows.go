package clickhouse

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// ErrTruncated is wrapped by the error of a read that found the answer ending inside a row:
// the connection broke, or the server stopped (its exception, when it wrote one after the
// rows, is returned instead as a [*ServerError] with MidStream set).
var ErrTruncated = errors.New("clickhouse: the answer ended inside a row")

// maxString bounds one String value: a larger length is not a row of ours but garbage.
const maxString = 64 << 20

// tailSize is how much of the end of an answer is kept to find an exception the server
// appended after rows.
const tailSize = 4 << 10

// Rows is the streamed answer of [Client.Query] in RowBinary: read each row's columns in the
// query's order with the typed methods, as long as [Rows.More] says there is another row,
// then call [Rows.End]. A Rows belongs to one goroutine.
type Rows struct {
	body    io.ReadCloser
	buf     []byte
	pos     int
	end     int
	eof     bool
	err     error
	wrapErr func(error) error
	tail    []byte // the last bytes read, at most tailSize
	read    int64
	abort   func() // cancels the query on the server; called by Close before the answer's end
}

func newRows(body io.ReadCloser, wrapErr func(error) error) *Rows {
	return &Rows{body: body, buf: make([]byte, 256<<10), wrapErr: wrapErr}
}

// BytesRead returns how many bytes of the answer were read so far.
func (r *Rows) BytesRead() int64 { return r.read }

// fill reads until at least n unread bytes are buffered or the answer ends.
func (r *Rows) fill(n int) error {
	if r.err != nil {
		return r.err
	}
	if r.pos > 0 {
		r.end = copy(r.buf, r.buf[r.pos:r.end])
		r.pos = 0
	}
	if n > len(r.buf) {
		if n > max(maxString+16, maxRow) {
			r.err = r.fail(fmt.Errorf("clickhouse: a value of %d bytes: not RowBinary of the query", n))
			return r.err
		}
		nb := make([]byte, max(n, 2*len(r.buf)))
		copy(nb, r.buf[:r.end])
		r.buf = nb
	}
	for r.end < n && !r.eof {
		m, err := r.body.Read(r.buf[r.end:])
		if m > 0 {
			r.keepTail(r.buf[r.end : r.end+m])
			r.end += m
			r.read += int64(m)
		}
		if err == io.EOF {
			r.eof = true
		} else if err != nil {
			r.err = r.fail(r.wrapErr(err))
			return r.err
		}
	}
	if r.end < n {
		r.err = r.fail(ErrTruncated)
		return r.err
	}
	return nil
}

func (r *Rows) keepTail(b []byte) {
	if len(b) >= tailSize {
		r.tail = append(r.tail[:0], b[len(b)-tailSize:]...)
		return
	}
	if over := len(r.tail) + len(b) - tailSize; over > 0 {
		r.tail = append(r.tail[:0], r.tail[over:]...)
	}
	r.tail = append(r.tail, b...)
}

// fail prefers the server's own exception, when the answer's end holds one, to err.
func (r *Rows) fail(err error) error {
	if se := r.exception(); se != nil {
		return se
	}
	return err
}

// exception finds an exception the server appended to the rows it had sent.
func (r *Rows) exception() *ServerError {
	i := bytes.LastIndex(r.tail, []byte("Code: "))
	if i < 0 || !bytes.Contains(r.tail[i:], []byte("DB::Exception")) {
		return nil
	}
	se := parseServerError(0, "", r.tail[i:])
	se.MidStream = true
	return se
}

// Exception returns the exception the server appended after the rows read so far, if the
// end of what was read holds one; nil otherwise. A caller whose rows do not add up (fewer
// than counted) asks it for the reason.
func (r *Rows) Exception() error {
	if se := r.exception(); se != nil {
		return se
	}
	return nil
}

func (r *Rows) take(n int) ([]byte, error) {
	if r.end-r.pos < n {
		if err := r.fill(n); err != nil {
			return nil, err
		}
	}
	b := r.buf[r.pos : r.pos+n]
	r.pos += n
	return b, nil
}

// More reports whether another row follows; false at the end of the answer. Its error is a
// broken connection, a timeout or the context's.
func (r *Rows) More() (bool, error) {
	if r.end > r.pos {
		return true, nil
	}
	if !r.eof {
		err := r.fill(1)
		if err == nil {
			return true, nil
		}
		if !errors.Is(err, ErrTruncated) || r.end != r.pos {
			return false, err
		}
		r.err = nil // no byte more: the end of the answer
	}
	// The end: rows that were in fact an exception's text, appended by a server that failed
	// after its 200, end with it.
	if se := r.exception(); se != nil {
		return false, se
	}
	return false, nil
}

// UInt64 reads a UInt64 (or Int64) column.
func (r *Rows) UInt64() (uint64, error) {
	b, err := r.take(8)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// UInt32 reads a UInt32 column (or a DateTime: seconds since 1970).
func (r *Rows) UInt32() (uint32, error) {
	b, err := r.take(4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

// UInt16 reads a UInt16 column (or a Date: days since 1970-01-01).
func (r *Rows) UInt16() (uint16, error) {
	b, err := r.take(2)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint16(b), nil
}

// UInt8 reads a UInt8 column.
func (r *Rows) UInt8() (uint8, error) {
	b, err := r.take(1)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

// String reads a String column, appending it to dst.
func (r *Rows) String(dst []byte) ([]byte, error) {
	n, err := r.uvarint()
	if err != nil {
		return dst, err
	}
	if n > maxString {
		r.err = r.fail(fmt.Errorf("clickhouse: a string of %d bytes: not RowBinary of the query", n))
		return dst, r.err
	}
	b, err := r.take(int(n))
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// Fixed reads a FixedString(len(dst)) column into dst.
func (r *Rows) Fixed(dst []byte) error {
	b, err := r.take(len(dst))
	if err != nil {
		return err
	}
	copy(dst, b)
	return nil
}

func (r *Rows) uvarint() (uint64, error) {
	var x uint64
	for s := uint(0); s < 64; s += 7 {
		b, err := r.take(1)
		if err != nil {
			return 0, err
		}
		x |= uint64(b[0]&0x7f) << s
		if b[0] < 0x80 {
			return x, nil
		}
	}
	r.err = r.fail(errors.New("clickhouse: a length longer than 64 bits: not RowBinary"))
	return 0, r.err
}

// End checks that the answer ended right after the last row read: bytes left over mean the
// rows were not what the query asked for, or the server appended an exception.
func (r *Rows) End() error {
	more, err := r.More()
	if err != nil {
		return err
	}
	if more {
		if se := r.exceptionAhead(); se != nil {
			return se
		}
		return errors.New("clickhouse: bytes after the last row: the answer is not the query's RowBinary")
	}
	return nil
}

// exceptionAhead looks for an exception in what is left of the answer (at most tailSize
// more bytes are read).
func (r *Rows) exceptionAhead() *ServerError {
	rest := append([]byte(nil), r.buf[r.pos:r.end]...)
	if len(rest) < tailSize && !r.eof {
		more := make([]byte, tailSize)
		n, _ := io.ReadFull(r.body, more)
		rest = append(rest, more[:n]...)
	}
	i := bytes.Index(rest, []byte("Code: "))
	if i < 0 || !bytes.Contains(rest[i:], []byte("DB::Exception")) {
		return nil
	}
	se := parseServerError(0, "", rest[i:])
	se.MidStream = true
	return se
}

// Close releases the connection; reading the rest of a long answer is not waited for. Closed
// before the answer's end (an error, or rows left unread), it cancels the query on the server
// first (the client's KILL QUERY, bounded by its cancel wait): a server does not stop a query
// whose client went away. A second Close does nothing more.
func (r *Rows) Close() error {
	err := r.body.Close()
	if abort := r.abort; abort != nil && !r.eof {
		r.abort = nil
		abort()
	}
	return err
}
