package main

import (
	"errors"
	"fmt"

	"github.com/clickgen/clickgen/generator/verify/topics"
)

// verifyRunError words err, topics.Verify.Run's failure, for the command line: a topic
// with another partition count says which flag to change, running out of time names
// --timeout. Other errors stay as they are.
func verifyRunError(v *topics.Verify, err error) error {
	var pe *topics.PartitionsError
	var te *topics.TimeoutError
	switch {
	case errors.As(err, &pe):
		flag := map[string]string{v.HitsTopic: "--hits-partitions", v.OrdersTopic: "--orders-partitions"}[pe.Topic]
		return fmt.Errorf("verify: %w: if it was created so, say %s %d", pe, flag, pe.Has)
	case errors.As(err, &te):
		return fmt.Errorf("verify: %w (--timeout %v)", te.Err, te.Timeout)
	}
	return err
}
