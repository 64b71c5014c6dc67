// gw-spire: the SPIRE server and agent of the workload-identity tests in one binary, built from
// github.com/spiffe/spire's own command packages. `gw-spire server run …` / `gw-spire agent run …`.
package main

import (
	"context"
	"fmt"
	"os"

	agentcli "github.com/spiffe/spire/cmd/spire-agent/cli"
	servercli "github.com/spiffe/spire/cmd/spire-server/cli"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: gw-spire server|agent <spire command> …")
		os.Exit(2)
	}
	ctx := context.Background()
	switch os.Args[1] {
	case "server":
		os.Exit(new(servercli.CLI).Run(ctx, os.Args[2:]))
	case "agent":
		os.Exit(new(agentcli.CLI).Run(ctx, os.Args[2:]))
	default:
		fmt.Fprintf(os.Stderr, "gw-spire: unknown component %q (want server or agent)\n", os.Args[1])
		os.Exit(2)
	}
}
