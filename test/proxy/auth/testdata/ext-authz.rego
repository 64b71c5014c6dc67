# The gRPC ext_authz tests' policy, evaluated by test/opa (OPA's Rego engine behind Envoy's Authorization
# service). Input is the CheckRequest as Envoy's OPA plugin presents it.
package envoy.authz

import rego.v1

http := input.attributes.request.http

claims := payload if {
	[_, encoded] := split(http.headers.authorization, " ")
	[_, payload, _] := io.jwt.decode(encoded)
}

default allow := {"allowed": false, "http_status": 401, "body": "{\"why\":\"who are you?\"}", "headers": {"www-authenticate": "Bearer realm=\"opa\"", "content-type": "application/json"}}

# /public/* is open to anyone.
allow := {"allowed": true, "headers": {"x-opa-user": "anonymous"}} if {
	input.parsed_path[0] == "public"
}

# /shop/* needs a token whose role claim is buyer; the user and the tenant from contextExtensions go upstream.
allow := {
	"allowed": true,
	"headers": {"x-opa-user": claims.sub, "x-opa-tenant": object.get(input.attributes.context_extensions, "tenant", "none")},
	"request_headers_to_remove": ["x-remove-me"],
	"response_headers_to_add": {"x-opa-decision": "allowed"},
	"dynamic_metadata": {"user": claims.sub},
} if {
	input.parsed_path[0] == "shop"
	claims.role == "buyer"
}

# A token without the buyer role gets a 403 with a JSON body of its own.
allow := {"allowed": false, "http_status": 403, "body": sprintf("{\"denied\":\"%s\"}", [claims.sub]), "headers": {"content-type": "application/json"}} if {
	input.parsed_path[0] == "shop"
	claims.role != "buyer"
}

# /orders allows a POST whose JSON body orders at most 3 items (forwardBody).
allow := {"allowed": true} if {
	input.parsed_path[0] == "orders"
	input.parsed_body.quantity <= 3
	not input.truncated_body
}

# /meta allows what requestMetadata says: the namespace gw.request carries the method as CEL saw it.
allow := {"allowed": true, "headers": {"x-opa-seen": input.attributes.metadata_context.filter_metadata["gw.request"].method}} if {
	input.parsed_path[0] == "meta"
}

# /rules allows any token and tells the gateway who it is (dynamic_metadata → CEL extauthz).
allow := {"allowed": true, "dynamic_metadata": {"user": claims.sub}} if {
	input.parsed_path[0] == "rules"
}
