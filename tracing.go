package amem

// TracerName is the instrumentation scope of amem's spans, in every
// package that makes them (the engine, the curators, the servers), through
// the OpenTelemetry API: the domain names it and imports none of it.
const TracerName = "github.com/amem-dev/amem"
