package main

import (
	"reflect"

	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/produce/sink"
)

// settingFields are the fields of sink.Settings a flag can set.
var settingFields = func() map[string]bool {
	m := map[string]bool{}
	for f := range reflect.TypeFor[sink.Settings]().Fields() {
		m[f.Name] = f.IsExported()
	}
	return m
}()

// checkSink checks the sink flags of a verb that sends to one topic or a file, as the
// libraries will, before anything is read: the settings (sink.Settings.Validate: exactly one
// kind of sink, the connection), then the flags given (checkGiven). Refusals name the flags.
func (b *binding) checkSink() error {
	if err := b.v.sink.Validate(); err != nil {
		return b.refuse(err)
	}
	return b.checkGiven()
}

// checkGiven refuses the sink flags given that do nothing, which the settings cannot tell
// from their defaults: a flag of another kind of sink, given for the one the settings choose
// (sink.Kind.Refuse: --create-topics and --replication-factor used to be accepted with --file
// and do nothing), and --replication-factor without --create-topics, even at its default, -1.
// The libraries check the settings themselves (sink.Settings.Validate). Refusals name the
// flags.
func (b *binding) checkGiven() error {
	s := &b.v.sink
	if k, err := s.Kind(); err == nil {
		for _, r := range b.rows {
			if r.name != "" && settingFields[r.field] && b.set(r.name) && !k.Applies(r.field) {
				return b.refuse(k.Refuse(r.field))
			}
		}
	}
	if b.set("replication-factor") && !s.CreateTopics {
		return b.refuse(sink.ErrReplicationNoCreation)
	}
	return nil
}

// sinkPaths are the files the sink flags name: the TLS files read, the data file (stdout's
// file for a sink that writes to stdout: a report named by the file stdout was redirected to
// would replace the data) and the report written.
func (b *binding) sinkPaths() []fileio.Use {
	s := &b.v.sink
	data := fileio.Output("--file", s.File)
	if k, err := s.Kind(); err == nil && k.Stdout {
		data = fileio.Output("--file - (stdout)", "/dev/stdout")
	}
	return []fileio.Use{
		fileio.Input("--tls-ca", s.TLSCA), fileio.Input("--tls-cert", s.TLSCert), fileio.Input("--tls-key", s.TLSKey),
		data, fileio.Output("--report", b.v.out.Report),
	}
}
