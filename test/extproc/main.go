// A small ext_proc server for Gw's tests, on go-control-plane's generated Envoy types: a field number in
// Gw's proto/envoy subset that disagrees with Envoy's shows up here as a field this server cannot read.
//
// It prints `listening <addr>` once, then one JSON line per message it receives:
// {"stream":N,"request":<ProcessingRequest as protojson>}. What it answers is chosen per stream by the
// request header `x-extproc-do` (comma-separated words, see answer()); `-do` gives the words for streams
// whose request headers it never sees; `-quiet` prints nothing after the address (benchmarks); `-cert` and
// `-key` serve TLS (grpcs://) instead of plaintext.
package main

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	core "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	extproc "github.com/envoyproxy/go-control-plane/envoy/service/ext_proc/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
)

type server struct {
	extproc.UnimplementedExternalProcessorServer
	defaults string
	quiet    bool
	streams  atomic.Int64
	out      sync.Mutex
}

func (s *server) record(stream int64, req *extproc.ProcessingRequest) {
	body, err := protojson.Marshal(req)
	if err != nil {
		log.Printf("marshal: %v", err)
		return
	}
	line, _ := json.Marshal(map[string]any{"stream": stream, "request": json.RawMessage(body)})
	s.out.Lock()
	defer s.out.Unlock()
	fmt.Println(string(line))
}

func headerValue(m *core.HeaderMap, name string) string {
	for _, h := range m.GetHeaders() {
		if h.GetKey() == name {
			if len(h.GetRawValue()) > 0 {
				return string(h.GetRawValue())
			}
			return h.GetValue()
		}
	}
	return ""
}

func set(name, value string) *core.HeaderValueOption {
	return &core.HeaderValueOption{
		Header:       &core.HeaderValue{Key: name, RawValue: []byte(value)},
		AppendAction: core.HeaderValueOption_OVERWRITE_IF_EXISTS_OR_ADD,
	}
}

func (s *server) Process(stream extproc.ExternalProcessor_ProcessServer) error {
	id := s.streams.Add(1)
	words := map[string]bool{}
	for _, w := range strings.Split(s.defaults, ",") {
		words[w] = w != ""
	}
	for {
		req, err := stream.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if !s.quiet {
			s.record(id, req)
		}
		if h := req.GetRequestHeaders(); h != nil {
			if do := headerValue(h.GetHeaders(), "x-extproc-do"); do != "" {
				for _, w := range strings.Split(do, ",") {
					words[strings.TrimSpace(w)] = true
				}
			}
		}
		resp, err := answer(req, words)
		if err != nil {
			return err
		}
		if resp == nil {
			continue
		}
		if err := stream.Send(resp); err != nil {
			return err
		}
	}
}

func immediate() *extproc.ProcessingResponse {
	return &extproc.ProcessingResponse{Response: &extproc.ProcessingResponse_ImmediateResponse{
		ImmediateResponse: &extproc.ImmediateResponse{
			Status:  &typev3.HttpStatus{Code: typev3.StatusCode_Forbidden},
			Headers: &extproc.HeaderMutation{SetHeaders: []*core.HeaderValueOption{set("x-extproc-why", "policy")}},
			Body:    []byte("stopped by ext_proc"),
		},
	}}
}

// answer decides the reply to one message; nil means none (a streamed body chunk the server is still reading).
func answer(req *extproc.ProcessingRequest, words map[string]bool) (*extproc.ProcessingResponse, error) {
	switch r := req.Request.(type) {
	case *extproc.ProcessingRequest_RequestHeaders:
		if words["fail-headers"] {
			return nil, status.Error(codes.Unavailable, "told to fail")
		}
		if words["slow-headers"] {
			time.Sleep(1500 * time.Millisecond)
		}
		if words["immediate"] {
			return immediate(), nil
		}
		common := &extproc.CommonResponse{}
		if words["set-header"] {
			common.HeaderMutation = &extproc.HeaderMutation{
				SetHeaders: []*core.HeaderValueOption{
					set("x-extproc-added", "yes"),
					set("x-overwrite", "new"),
					// Routing and framing headers: Gw never applies these (the route was matched on them).
					set(":path", "/elsewhere"),
					set("host", "elsewhere.example"),
					set("content-length", "9999"),
					{
						Header:       &core.HeaderValue{Key: "x-appended", Value: "second"},
						AppendAction: core.HeaderValueOption_APPEND_IF_EXISTS_OR_ADD,
					},
				},
				RemoveHeaders: []string{"x-remove-me"},
			}
		}
		if words["replace"] {
			common.Status = extproc.CommonResponse_CONTINUE_AND_REPLACE
			common.BodyMutation = &extproc.BodyMutation{Mutation: &extproc.BodyMutation_Body{Body: []byte("replaced")}}
		}
		if words["clear-route-cache"] {
			common.ClearRouteCache = true
		}
		resp := &extproc.ProcessingResponse{Response: &extproc.ProcessingResponse_RequestHeaders{
			RequestHeaders: &extproc.HeadersResponse{Response: common},
		}}
		if words["metadata"] {
			md, _ := structpb.NewStruct(map[string]any{"verdict": "clean", "score": 3})
			resp.DynamicMetadata = md
		}
		return resp, nil
	case *extproc.ProcessingRequest_RequestBody:
		if words["fail-body"] {
			return nil, status.Error(codes.Unavailable, "told to fail on the body")
		}
		if words["immediate-body"] {
			return immediate(), nil
		}
		return &extproc.ProcessingResponse{Response: &extproc.ProcessingResponse_RequestBody{
			RequestBody: &extproc.BodyResponse{Response: bodyCommon(r.RequestBody, words["upper-body"], words["stream-body"])},
		}}, nil
	case *extproc.ProcessingRequest_RequestTrailers:
		return &extproc.ProcessingResponse{Response: &extproc.ProcessingResponse_RequestTrailers{
			RequestTrailers: &extproc.TrailersResponse{HeaderMutation: &extproc.HeaderMutation{
				SetHeaders: []*core.HeaderValueOption{set("x-extproc-trailer", "request")},
			}},
		}}, nil
	case *extproc.ProcessingRequest_ResponseHeaders:
		if words["fail-response"] {
			return nil, status.Error(codes.Unavailable, "told to fail on the response")
		}
		common := &extproc.CommonResponse{}
		if words["resp-header"] {
			common.HeaderMutation = &extproc.HeaderMutation{
				SetHeaders:    []*core.HeaderValueOption{set("x-extproc-response", "yes")},
				RemoveHeaders: []string{"x-backend-secret"},
			}
		}
		return &extproc.ProcessingResponse{Response: &extproc.ProcessingResponse_ResponseHeaders{
			ResponseHeaders: &extproc.HeadersResponse{Response: common},
		}}, nil
	case *extproc.ProcessingRequest_ResponseBody:
		if words["fail-response-body"] {
			return nil, status.Error(codes.Unavailable, "told to fail on the response body")
		}
		return &extproc.ProcessingResponse{Response: &extproc.ProcessingResponse_ResponseBody{
			ResponseBody: &extproc.BodyResponse{Response: bodyCommon(r.ResponseBody, words["upper-resp-body"], words["stream-body"])},
		}}, nil
	case *extproc.ProcessingRequest_ResponseTrailers:
		return &extproc.ProcessingResponse{Response: &extproc.ProcessingResponse_ResponseTrailers{
			ResponseTrailers: &extproc.TrailersResponse{HeaderMutation: &extproc.HeaderMutation{
				SetHeaders: []*core.HeaderValueOption{set("x-extproc-trailer", "response")},
			}},
		}}, nil
	}
	return nil, status.Error(codes.InvalidArgument, "a message without a request")
}

// bodyCommon: unchanged, or upper-cased as a whole body (Buffered modes) or per chunk (FullDuplexStreamed).
func bodyCommon(b *extproc.HttpBody, upper, streamed bool) *extproc.CommonResponse {
	if !upper && !streamed {
		return &extproc.CommonResponse{}
	}
	body := b.GetBody()
	if upper {
		body = bytes.ToUpper(body)
	}
	if streamed {
		return &extproc.CommonResponse{BodyMutation: &extproc.BodyMutation{Mutation: &extproc.BodyMutation_StreamedResponse{
			StreamedResponse: &extproc.StreamedBodyResponse{Body: body, EndOfStream: b.GetEndOfStream()},
		}}}
	}
	return &extproc.CommonResponse{BodyMutation: &extproc.BodyMutation{Mutation: &extproc.BodyMutation_Body{Body: body}}}
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	defaults := flag.String("do", "", "words for streams whose request headers are not sent")
	quiet := flag.Bool("quiet", false, "print no message (benchmarks)")
	certFile := flag.String("cert", "", "TLS certificate (PEM); plaintext when empty")
	keyFile := flag.String("key", "", "TLS key (PEM)")
	epp := flag.Bool("epp", false, "serve as an InferencePool endpoint picker (epp.go)")
	prefer := flag.String("epp-prefer", "", "-epp: the endpoint (ip:port) to choose when the proxy offers it")
	model := flag.String("epp-model", "", "-epp: the model name written into the request body")
	primary := flag.String("epp-primary", "", "-epp: the endpoint named first; the choice becomes its fallback")
	flag.Parse()
	var options []grpc.ServerOption
	if *certFile != "" {
		pair, err := tls.LoadX509KeyPair(*certFile, *keyFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		options = append(options, grpc.Creds(credentials.NewServerTLSFromCert(&pair)))
	}
	lis, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("listening %s\n", lis.Addr())
	g := grpc.NewServer(options...)
	base := &server{defaults: *defaults, quiet: *quiet}
	if *epp {
		extproc.RegisterExternalProcessorServer(g, &eppServer{server: base, prefer: *prefer, model: *model, primary: *primary})
	} else {
		extproc.RegisterExternalProcessorServer(g, base)
	}
	if err := g.Serve(lis); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
