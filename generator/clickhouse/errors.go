package clickhouse

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Kinds of [*ServerError], for errors.Is.
var (
	// ErrUnknownTable: the table or its database does not exist (codes 60 and 81).
	ErrUnknownTable = errors.New("clickhouse: unknown table")
	// ErrUnknownColumn: the table has no column of that name (codes 16 and 47).
	ErrUnknownColumn = errors.New("clickhouse: unknown column")
	// ErrAuth: the server refused the user or the password (codes 192, 193, 194, 516, or
	// HTTP 401 without a code).
	ErrAuth = errors.New("clickhouse: authentication failed")
)

// ServerError is an error ClickHouse reported for a query: its code ("Code: 60."), the HTTP
// status and the message, shortened. MidStream is set when the server reported it after it
// had started sending rows (its status was 200 by then).
type ServerError struct {
	Code      int // 0 when the body carried none
	Status    int
	Message   string
	MidStream bool
}

func (e *ServerError) Error() string {
	var b strings.Builder
	b.WriteString("clickhouse: ")
	if e.MidStream {
		b.WriteString("the server failed after sending rows: ")
	}
	switch {
	case e.Code != 0 && e.Status != 0:
		fmt.Fprintf(&b, "code %d (HTTP %d): ", e.Code, e.Status)
	case e.Code != 0:
		fmt.Fprintf(&b, "code %d: ", e.Code)
	case e.Status != 0:
		fmt.Fprintf(&b, "HTTP %d %s: ", e.Status, http.StatusText(e.Status))
	}
	if e.Message == "" {
		b.WriteString("(no message)")
	} else {
		b.WriteString(e.Message)
	}
	return b.String()
}

// Is reports whether e is of kind target ([ErrUnknownTable], [ErrUnknownColumn], [ErrAuth]).
func (e *ServerError) Is(target error) bool {
	switch target {
	case ErrUnknownTable:
		return e.Code == 60 || e.Code == 81
	case ErrUnknownColumn:
		return e.Code == 16 || e.Code == 47
	case ErrAuth:
		return e.Code == 192 || e.Code == 193 || e.Code == 194 || e.Code == 516 ||
			e.Code == 0 && e.Status == http.StatusUnauthorized
	}
	return false
}

// maxMessage bounds the message kept of an error body.
const maxMessage = 600

var codeRE = regexp.MustCompile(`Code: (\d+)[.,]`)

// parseServerError reads ClickHouse's error body, in the words of 18.16 ("Code: 81,
// e.displayText() = DB::Exception: Database x doesn't exist, e.what() = DB::Exception") or
// of later servers ("Code: 60. DB::Exception: Table x doesn't exist. (UNKNOWN_TABLE)
// (version 26.7.3.1)"), or a proxy's page: the code, and the message without the
// decorations, on one line and shortened.
func parseServerError(status int, codeHeader string, body []byte) *ServerError {
	e := &ServerError{Status: status}
	e.Code, _ = strconv.Atoi(strings.TrimSpace(codeHeader))
	text := string(body)
	if m := codeRE.FindStringSubmatchIndex(text); m != nil {
		if n, err := strconv.Atoi(text[m[2]:m[3]]); err == nil && e.Code == 0 {
			e.Code = n
		}
		text = text[m[0]:]
	}
	e.Message = errorMessage(text)
	return e
}

// exceptionRE finds where an exception's text starts: "DB::Exception: ", "DB::NetException: ".
var exceptionRE = regexp.MustCompile(`DB::[A-Za-z]*Exception: `)

// errorMessage is the readable part of an exception text. An 18.16 exception may carry the
// exceptions it was made of (code 279, no replica of a shard reached: "All connection tries
// failed. Log: Code: 210, … Connection refused (127.0.0.1:9005), e.what() = …, e.what() =
// DB::NetException"): the message runs from the first exception's text to its own e.what(),
// the last, so the addresses the inner ones name are kept.
func errorMessage(text string) string {
	if m := exceptionRE.FindStringIndex(text); m != nil {
		text = text[m[1]:]
	}
	if i := strings.LastIndex(text, ", e.what() = "); i >= 0 {
		text = text[:i]
	}
	if i := strings.Index(text, " (version "); i >= 0 {
		text = text[:i]
	}
	text = strings.Join(strings.Fields(strings.ToValidUTF8(text, "�")), " ")
	if len(text) > maxMessage {
		cut := maxMessage
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "…"
	}
	return text
}

// Phases of a [TimeoutError].
const (
	PhaseConnect   = "connect"
	PhaseFirstByte = "first byte"
	PhaseIdle      = "idle"
)

// TimeoutError is a bounded wait that ran out: connecting, waiting for the first byte of an
// answer, or waiting for more of it.
type TimeoutError struct {
	Phase string // PhaseConnect, PhaseFirstByte or PhaseIdle
	After time.Duration
	Addr  string
}

func (e *TimeoutError) Error() string {
	switch e.Phase {
	case PhaseConnect:
		return fmt.Sprintf("clickhouse: %s: no connection within %v", e.Addr, e.After)
	case PhaseFirstByte:
		return fmt.Sprintf("clickhouse: %s: no answer within %v of the query", e.Addr, e.After)
	}
	return fmt.Sprintf("clickhouse: %s: the server stopped sending for %v in the middle of an answer", e.Addr, e.After)
}

// Timeout reports true, as a net.Error's does.
func (e *TimeoutError) Timeout() bool { return true }

// Temporary reports false: waiting longer is the caller's decision.
func (e *TimeoutError) Temporary() bool { return false }
