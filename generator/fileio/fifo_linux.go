package fileio

import "golang.org/x/sys/unix"

// writerGone reports whether fd, a FIFO or pipe opened for reading whose read(2) just said 0
// bytes, has reached its end rather than waiting for a first writer: a pipe (pipefs, such as
// /dev/stdin in a shell pipeline) gains no writer later, and a FIFO a writer opened and
// closed since fd was opened reports POLLHUP. A FIFO whose only writer opened it before fd
// was opened and closed it without writing is taken as not yet written: the read's deadline
// ends that wait.
func writerGone(fd uintptr) bool {
	var st unix.Statfs_t
	if unix.Fstatfs(int(fd), &st) == nil && st.Type == unix.PIPEFS_MAGIC {
		return true
	}
	p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(p, 0)
	return err == nil && n == 1 && p[0].Revents&unix.POLLHUP != 0
}
