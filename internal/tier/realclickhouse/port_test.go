package realclickhouse

import (
	"net"
	"strconv"
	"testing"

	"github.com/clickgen/clickgen/internal/testenv"
)

// TestStartRetriesATakenPort gives Start a port another process listens on: the server there
// cannot listen and exits, and Start tries another port instead of failing (or of taking the
// other process's answers for its server's).
func TestStartRetriesATakenPort(t *testing.T) {
	testenv.Need(t, testenv.ClickHouse, Available())
	taken := freeBase(t)
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(taken)))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var picked []int
	pickPort = func(t testing.TB) int {
		p := taken
		if len(picked) > 0 {
			p = freeBase(t)
		}
		picked = append(picked, p)
		return p
	}
	defer func() { pickPort = freeBase }()
	s := Start(t, Options{})
	if len(picked) != 2 || s.port == taken {
		t.Fatalf("ports tried %v, server on %d: want the taken %d, then another", picked, s.port, taken)
	}
	if got := s.Query("SELECT 1"); got != "1" {
		t.Fatalf("SELECT 1 = %q", got)
	}
}
