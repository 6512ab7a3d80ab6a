module github.com/clickgen/clickgen

go 1.26

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/spf13/pflag v1.1.0
)

require golang.org/x/text v0.14.0 // indirect
