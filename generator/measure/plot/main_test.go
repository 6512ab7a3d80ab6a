package plot

import (
	"os"
	"testing"

	"github.com/clickgen/clickgen/internal/testenv"
)

// TestMain runs the tests and says which test tiers ran and which were skipped, and why.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
