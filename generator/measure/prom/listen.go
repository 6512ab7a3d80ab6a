package prom

// ListenOn serves metrics on addr: a nil *Server (whose methods do nothing) when addr is
// empty, else [Listen] after [CheckAddr]. A bad address is an *[AddrError], a busy one
// Listen's error, both known before anything connects or is sent.
func ListenOn(addr string) (*Server, error) {
	if addr == "" {
		return nil, nil
	}
	if err := CheckAddr(addr); err != nil {
		return nil, err
	}
	return Listen(addr)
}
