package api

import _ "embed"

// OpenAPI is the OpenAPI 3.1 description of the API (openapi.json).
//
//go:embed openapi.json
var OpenAPI []byte
