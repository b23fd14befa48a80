// Package clients holds the Python and TypeScript clients of the amem REST
// API (python/, typescript/) and, in its tests, what keeps them honest:
// each is installed the way its README says and run against a live
// `amem serve`, and each must have a method for every operationId of
// server/openapi.json.
package clients
