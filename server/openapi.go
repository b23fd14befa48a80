package server

import (
	_ "embed"
	"net/http"

	"github.com/amem-dev/amem/auth"
)

// openAPI is the API's OpenAPI 3.1 document. TestOpenAPIMatchesRoutes
// fails when it and the route table disagree.
//
//go:embed openapi.json
var openAPI []byte

func serveOpenAPI(w http.ResponseWriter, _ *http.Request, _ auth.Principal) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(openAPI)
}
