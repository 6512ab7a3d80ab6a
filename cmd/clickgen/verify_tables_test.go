package main

import (
	"encoding/binary"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// tablelessServer answers like a ClickHouse server that holds none of the stand's tables:
// its version and its clock, and "doesn't exist" (code 60) for every query over a table.
func tablelessServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		q := string(body)
		switch {
		case answerEmptyProbe(w, q):
		case strings.HasPrefix(q, "SELECT version()"):
			w.Write(append([]byte{7}, "18.16.1"...))
		case strings.HasPrefix(q, "SELECT toUInt32(now())"):
			w.Write(binary.LittleEndian.AppendUint32(nil, 1_800_000_000))
		default:
			w.Header().Set("X-ClickHouse-Exception-Code", "60")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, "Code: 60, e.displayText() = DB::Exception: Table does not exist.\n")
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// answerEmptyProbe answers verify's probe of the named tables (the current database, then
// system.tables and system.columns) as a server that holds none of them does, and says
// whether q was such a query.
func answerEmptyProbe(w http.ResponseWriter, q string) bool {
	switch {
	case strings.HasPrefix(q, "SELECT currentDatabase()"):
		w.Write(append(binary.AppendUvarint(nil, 7), "default"...))
	case strings.Contains(q, "FROM system.tables"), strings.Contains(q, "FROM system.columns"):
		// no row: none of the tables exists
	default:
		return false
	}
	return true
}

// TestVerifyStoreNamesTablesAndSkips is issue 38 item 2 through the command: one line says
// which tables are judged and which are skipped (with the flag that skipped them); with
// --wait, each table that does not exist is said at once with the flag that skips it and is
// not waited for; the verdict names each again with its flag. Exit 1: a missing table is a
// difference.
func TestVerifyStoreNamesTablesAndSkips(t *testing.T) {
	srv := tablelessServer(t)
	_, errs, code := clickgen(t, raceScaled("verify", "--day", "1", "--clickhouse", srv.URL, "--wait", "1h", "--marts-view", "")...)
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, errs)
	}
	for _, want := range []string{
		"clickgen: verify: judging events ods.event_dist, raw stg.hits_raw_dist, errors ods.event_errors_dist, orders ods.order_dist, " +
			"order errors ods.order_errors_dist; skipped: marts (--marts-view '')\n",
		"verify: events: ods.event_dist does not exist; ", "not waited for (--events-table '' skips it)",
		"not waited for (--raw-table '' skips it)", "not waited for (--errors-table '' skips it)",
		"not waited for (--orders-table '' skips it)", "not waited for (--order-errors-table '' skips it)",
		"events ods.event_dist cannot be read (--events-table '' skips it); raw stg.hits_raw_dist cannot be read (--raw-table '' skips it)",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if strings.Contains(errs, "no table yet") || strings.Contains(errs, "waiting up to") {
		t.Errorf("verify waited for tables that do not exist:\n%s", errs)
	}
}
