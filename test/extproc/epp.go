package main

// -epp mode: an endpoint picker (EPP) as the Gateway API Inference Extension's protocol describes it. It
// reads the request headers and the whole body (full-duplex streamed, like the reference EPP), then
// answers the headers with the chosen endpoint in both places the protocol names (the
// x-gateway-destination-endpoint header and dynamic metadata envoy.lb), followed by the body, streamed
// back (its "model" replaced when -epp-model is set). It chooses -epp-prefer when that is in the subset
// the proxy sent (metadata envoy.lb.subset_hint), else the subset's last endpoint. With -epp-primary it names
// that endpoint instead and its choice as the fallback (metadata envoy.lb
// x-gateway-destination-endpoint-fallback). The response phase (headers with the served endpoint in metadata
// envoy.lb) is recorded like every message and answered with an empty headers response.

import (
	"encoding/json"
	"io"

	core "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	extproc "github.com/envoyproxy/go-control-plane/envoy/service/ext_proc/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/types/known/structpb"
)

type eppServer struct {
	*server
	prefer  string
	model   string
	primary string
}

func (s *eppServer) Process(stream extproc.ExternalProcessor_ProcessServer) error {
	id := s.streams.Add(1)
	var subset []string
	var body []byte
	for {
		req, err := stream.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		s.record(id, req)
		if hint := req.GetMetadataContext().GetFilterMetadata()["envoy.lb.subset_hint"]; hint != nil {
			subset = subset[:0]
			for _, v := range hint.GetFields()["x-gateway-destination-endpoint-subset"].GetListValue().GetValues() {
				subset = append(subset, v.GetStringValue())
			}
		}
		last := false
		switch r := req.Request.(type) {
		case *extproc.ProcessingRequest_RequestHeaders:
			last = r.RequestHeaders.GetEndOfStream()
		case *extproc.ProcessingRequest_RequestBody:
			body = append(body, r.RequestBody.GetBody()...)
			last = r.RequestBody.GetEndOfStream()
		case *extproc.ProcessingRequest_ResponseHeaders:
			if err := stream.Send(&extproc.ProcessingResponse{Response: &extproc.ProcessingResponse_ResponseHeaders{
				ResponseHeaders: &extproc.HeadersResponse{},
			}}); err != nil {
				return err
			}
			continue
		default:
			continue
		}
		if !last {
			continue
		}
		for _, resp := range s.decide(subset, body) {
			if err := stream.Send(resp); err != nil {
				return err
			}
		}
	}
}

func (s *eppServer) decide(subset []string, body []byte) []*extproc.ProcessingResponse {
	if len(subset) == 0 {
		return []*extproc.ProcessingResponse{{Response: &extproc.ProcessingResponse_ImmediateResponse{
			ImmediateResponse: &extproc.ImmediateResponse{
				Status:  &typev3.HttpStatus{Code: typev3.StatusCode_ServiceUnavailable},
				Details: "no endpoint in the subset",
			},
		}}}
	}
	pick := subset[len(subset)-1]
	for _, e := range subset {
		if e == s.prefer {
			pick = e
		}
	}
	lb := map[string]any{"x-gateway-destination-endpoint": pick}
	named := pick
	if s.primary != "" {
		lb = map[string]any{"x-gateway-destination-endpoint": s.primary, "x-gateway-destination-endpoint-fallback": pick}
		named = s.primary
	}
	md, _ := structpb.NewStruct(map[string]any{"envoy.lb": lb})
	headers := &extproc.ProcessingResponse{
		Response: &extproc.ProcessingResponse_RequestHeaders{RequestHeaders: &extproc.HeadersResponse{
			Response: &extproc.CommonResponse{ClearRouteCache: true, HeaderMutation: &extproc.HeaderMutation{
				SetHeaders: []*core.HeaderValueOption{set("x-gateway-destination-endpoint", named)},
			}},
		}},
		DynamicMetadata: md,
	}
	if len(body) == 0 {
		return []*extproc.ProcessingResponse{headers}
	}
	if s.model != "" {
		var doc map[string]any
		if json.Unmarshal(body, &doc) == nil {
			doc["model"] = s.model
			body, _ = json.Marshal(doc)
		}
	}
	return []*extproc.ProcessingResponse{headers, {Response: &extproc.ProcessingResponse_RequestBody{
		RequestBody: &extproc.BodyResponse{Response: &extproc.CommonResponse{BodyMutation: &extproc.BodyMutation{
			Mutation: &extproc.BodyMutation_StreamedResponse{StreamedResponse: &extproc.StreamedBodyResponse{Body: body, EndOfStream: true}},
		}}},
	}}}
}
