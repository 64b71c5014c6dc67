// The global rate-limit tests' service: envoyproxy/ratelimit (Envoy's reference RateLimitService on Redis),
// built from Go modules. Configured, as upstream documents, by environment variables (REDIS_URL, GRPC_PORT,
// RUNTIME_ROOT, …) that the test harness sets.
package main

import (
	"github.com/envoyproxy/ratelimit/src/service_cmd/runner"
	"github.com/envoyproxy/ratelimit/src/settings"
)

func main() {
	r := runner.NewRunner(settings.NewSettings())
	r.Run()
}
