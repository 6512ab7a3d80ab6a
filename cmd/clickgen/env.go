package main

// envLookup is how the command reads its environment: os.LookupEnv, or a test's map. An empty
// value counts as unset, so a scheduler template that renders an unset variable as "" does not
// make GENERATOR_DAY= mean day 0.
type envLookup func(name string) (string, bool)
