// The ext_authz tests' policy server: Open Policy Agent's Rego engine behind Envoy's
// envoy.service.auth.v3.Authorization service (go-control-plane's generated types), built from Go modules by
// `make opa`. It follows the contract of OPA's Envoy plugin: the Rego input is the CheckRequest as JSON (proto
// field names) plus parsed_path, parsed_query and parsed_body; the decision is a boolean or an object with
// allowed, headers, request_headers_to_remove, response_headers_to_add, body, http_status and dynamic_metadata.
// The plugin's own module is not served by the Go module proxy, so this is the same engine and wire types,
// assembled here.
package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/url"
	"os"
	"strings"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	authv3 "github.com/envoyproxy/go-control-plane/envoy/service/auth/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"github.com/open-policy-agent/opa/v1/rego"
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
)

type server struct {
	authv3.UnimplementedAuthorizationServer
	query rego.PreparedEvalQuery
}

func main() {
	policy := flag.String("policy", "", "Rego policy file")
	query := flag.String("query", "data.envoy.authz.allow", "decision query")
	certFile := flag.String("cert", "", "TLS certificate (PEM); plaintext when empty")
	keyFile := flag.String("key", "", "TLS key (PEM)")
	flag.Parse()
	source, err := os.ReadFile(*policy)
	if err != nil {
		log.Fatal(err)
	}
	prepared, err := rego.New(rego.Query(*query), rego.Module(*policy, string(source))).PrepareForEval(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	var options []grpc.ServerOption
	if *certFile != "" {
		pair, err := tls.LoadX509KeyPair(*certFile, *keyFile)
		if err != nil {
			log.Fatal(err)
		}
		options = append(options, grpc.Creds(credentials.NewServerTLSFromCert(&pair)))
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	grpcServer := grpc.NewServer(options...)
	authv3.RegisterAuthorizationServer(grpcServer, &server{query: prepared})
	fmt.Printf("listening %s\n", listener.Addr())
	log.Fatal(grpcServer.Serve(listener))
}

func (s *server) Check(ctx context.Context, request *authv3.CheckRequest) (*authv3.CheckResponse, error) {
	input, err := inputOf(request)
	if err != nil {
		return nil, err
	}
	results, err := s.query.Eval(ctx, rego.EvalInput(input))
	if err != nil {
		return nil, err
	}
	if len(results) == 0 || len(results[0].Expressions) == 0 {
		return deny(403, nil, "", nil), nil
	}
	switch decision := results[0].Expressions[0].Value.(type) {
	case bool:
		if decision {
			return allow(nil, nil, nil, nil), nil
		}
		return deny(403, nil, "", nil), nil
	case map[string]interface{}:
		return fromObject(decision)
	default:
		return nil, fmt.Errorf("decision of unexpected type %T", decision)
	}
}

func inputOf(request *authv3.CheckRequest) (map[string]interface{}, error) {
	raw, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(request)
	if err != nil {
		return nil, err
	}
	var input map[string]interface{}
	if err := json.Unmarshal(raw, &input); err != nil {
		return nil, err
	}
	httpRequest := request.GetAttributes().GetRequest().GetHttp()
	parsed, err := url.Parse(httpRequest.GetPath())
	if err != nil {
		return nil, err
	}
	segments := strings.Split(strings.TrimPrefix(parsed.Path, "/"), "/")
	pathValues := make([]interface{}, len(segments))
	for i, segment := range segments {
		pathValues[i] = segment
	}
	input["parsed_path"] = pathValues
	queryValues := map[string]interface{}{}
	for name, values := range parsed.Query() {
		list := make([]interface{}, len(values))
		for i, value := range values {
			list[i] = value
		}
		queryValues[name] = list
	}
	input["parsed_query"] = queryValues
	var body interface{}
	if httpRequest.GetBody() != "" && json.Unmarshal([]byte(httpRequest.GetBody()), &body) == nil {
		input["parsed_body"] = body
	}
	input["truncated_body"] = httpRequest.GetHeaders()["x-envoy-auth-partial-body"] == "true"
	return input, nil
}

func fromObject(decision map[string]interface{}) (*authv3.CheckResponse, error) {
	headers := headerOptions(decision["headers"], false)
	appended := headerOptions(decision["response_headers_to_add"], true)
	var removed []string
	if list, ok := decision["request_headers_to_remove"].([]interface{}); ok {
		for _, name := range list {
			removed = append(removed, fmt.Sprint(name))
		}
	}
	var metadata *structpb.Struct
	if object, ok := decision["dynamic_metadata"].(map[string]interface{}); ok {
		converted, err := structpb.NewStruct(object)
		if err != nil {
			return nil, err
		}
		metadata = converted
	}
	if allowed, _ := decision["allowed"].(bool); allowed {
		return allow(headers, appended, removed, metadata), nil
	}
	code := 403
	if number, ok := decision["http_status"].(json.Number); ok {
		value, _ := number.Int64()
		code = int(value)
	}
	body, _ := decision["body"].(string)
	return deny(code, headers, body, metadata), nil
}

func headerOptions(value interface{}, appendValue bool) []*corev3.HeaderValueOption {
	object, ok := value.(map[string]interface{})
	if !ok {
		return nil
	}
	var options []*corev3.HeaderValueOption
	for name, headerValue := range object {
		action := corev3.HeaderValueOption_OVERWRITE_IF_EXISTS_OR_ADD
		if appendValue {
			action = corev3.HeaderValueOption_APPEND_IF_EXISTS_OR_ADD
		}
		options = append(options, &corev3.HeaderValueOption{
			Header:       &corev3.HeaderValue{Key: name, Value: fmt.Sprint(headerValue)},
			AppendAction: action,
		})
	}
	return options
}

func allow(headers, appended []*corev3.HeaderValueOption, removed []string, metadata *structpb.Struct) *authv3.CheckResponse {
	return &authv3.CheckResponse{
		Status: &status.Status{Code: int32(codes.OK)},
		HttpResponse: &authv3.CheckResponse_OkResponse{OkResponse: &authv3.OkHttpResponse{
			Headers:              headers,
			HeadersToRemove:      removed,
			ResponseHeadersToAdd: appended,
		}},
		DynamicMetadata: metadata,
	}
}

func deny(code int, headers []*corev3.HeaderValueOption, body string, metadata *structpb.Struct) *authv3.CheckResponse {
	return &authv3.CheckResponse{
		Status: &status.Status{Code: int32(codes.PermissionDenied)},
		HttpResponse: &authv3.CheckResponse_DeniedResponse{DeniedResponse: &authv3.DeniedHttpResponse{
			Status:  &typev3.HttpStatus{Code: typev3.StatusCode(code)},
			Headers: headers,
			Body:    body,
		}},
		DynamicMetadata: metadata,
	}
}
