package intake

// Exported for the external test package intake_test, whose tests import package generator
// (package intake's own tests cannot: generator's tests import intake, so an internal test
// importing generator would be an import cycle). chDB allows one engine data path per process,
// so both packages of this test binary must share one session.

// OpenEngine is openEngine: the test binary's one chDB session, where the chdb tier runs.
var OpenEngine = openEngine
