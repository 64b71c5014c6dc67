// A forward proxy for the upstream tunnel tests (backend.tunnel): elazarl/goproxy answering CONNECT and
// absolute-form requests, behind a Proxy-Authorization: Basic check. It prints `listening <addr>` once ready,
// then one JSON line per request it handled: {"method":"CONNECT","target":"host:port"} or
// {"method":"GET","target":"http://host:port/path"}; refused requests carry "refused":true.
package main

import (
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"syscall"

	"github.com/elazarl/goproxy"
)

type record struct {
	Method  string `json:"method"`
	Target  string `json:"target"`
	Refused bool   `json:"refused,omitempty"`
}

var out sync.Mutex

func emit(r record) {
	out.Lock()
	defer out.Unlock()
	line, _ := json.Marshal(r)
	fmt.Println(string(line))
}

// blackhole listens on 127.0.0.1 and never accepts: once its queue is full, the kernel drops new SYNs,
// so a connect to it hangs like one to an unreachable address, on loopback.
func blackhole() {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err == nil {
		err = syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}})
	}
	if err == nil {
		err = syscall.Listen(fd, 0)
	}
	var sa syscall.Sockaddr
	if err == nil {
		sa, err = syscall.Getsockname(fd)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("listening 127.0.0.1:%d\n", sa.(*syscall.SockaddrInet4).Port)
	select {}
}

// denied is the 407 answer to a request without the expected Proxy-Authorization.
func denied(r *http.Request) *http.Response {
	resp := goproxy.NewResponse(r, goproxy.ContentTypeText, http.StatusProxyAuthRequired, "proxy authentication required\n")
	resp.Header.Set("Proxy-Authenticate", `Basic realm="forwardproxy"`)
	return resp
}

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	user := flag.String("user", "", "expected basic-auth user (empty: no authentication)")
	password := flag.String("password", "", "expected basic-auth password")
	hole := flag.Bool("blackhole", false, "instead: listen with a backlog of 0 and never accept (connects hang once it is full)")
	flag.Parse()
	if *hole {
		blackhole()
	}

	want := "Basic " + base64.StdEncoding.EncodeToString([]byte(*user+":"+*password))
	authorized := func(r *http.Request) bool {
		return *user == "" || r.Header.Get("Proxy-Authorization") == want
	}

	proxy := goproxy.NewProxyHttpServer()
	proxy.Tr.Proxy = nil // never another proxy from the environment: only loopback traffic
	proxy.OnRequest().HandleConnectFunc(func(host string, ctx *goproxy.ProxyCtx) (*goproxy.ConnectAction, string) {
		if !authorized(ctx.Req) {
			emit(record{Method: http.MethodConnect, Target: host, Refused: true})
			ctx.Resp = denied(ctx.Req)
			return goproxy.RejectConnect, host
		}
		emit(record{Method: http.MethodConnect, Target: host})
		return goproxy.OkConnect, host
	})
	proxy.OnRequest().DoFunc(func(r *http.Request, ctx *goproxy.ProxyCtx) (*http.Request, *http.Response) {
		if !authorized(r) {
			emit(record{Method: r.Method, Target: r.URL.String(), Refused: true})
			return r, denied(r)
		}
		emit(record{Method: r.Method, Target: r.URL.String()})
		r.Header.Del("Proxy-Authorization")
		return r, nil
	})

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("listening %s\n", ln.Addr())
	if err := http.Serve(ln, proxy); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
