//go:build !linux

package fileio

import "golang.org/x/sys/unix"

// writerGone reports whether fd, a FIFO or pipe opened for reading whose read(2) just said 0
// bytes, has reached its end rather than waiting for a first writer: a FIFO a writer opened
// and closed since fd was opened reports POLLHUP. Elsewhere than on Linux a pipe cannot be
// told from a FIFO: an empty pipe waits for the read's deadline.
func writerGone(fd uintptr) bool {
	p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(p, 0)
	return err == nil && n == 1 && p[0].Revents&unix.POLLHUP != 0
}
