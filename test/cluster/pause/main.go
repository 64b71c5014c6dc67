// Command pause is the real-node suite's pod sandbox image's only program: it holds the pod's namespaces
// open until it is told to stop, as Kubernetes' own pause image does (that one is pulled from a registry,
// which the suite does not use). Built static (CGO_ENABLED=0) so the image needs no C library.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	<-stop
}
