// The OpenTelemetry semantic-convention attribute names the proxy's spans use, as plain strings: the
// package's incubating entry point (where the GenAI and MCP names live) alone holds 3.5 MB of heap for
// thousands of names. test/proxy/telemetry-semconv.test.ts checks each against the package.
export const ATTR_CLIENT_ADDRESS = 'client.address';
export const ATTR_HTTP_REQUEST_METHOD = 'http.request.method';
export const ATTR_HTTP_RESPONSE_STATUS_CODE = 'http.response.status_code';
export const ATTR_URL_PATH = 'url.path';
export const ATTR_SERVICE_NAME = 'service.name';
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const ATTR_GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
export const ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const ATTR_MCP_METHOD_NAME = 'mcp.method.name';
export const ATTR_MCP_SESSION_ID = 'mcp.session.id';
export const ATTR_RPC_SYSTEM_NAME = 'rpc.system.name';
export const ATTR_RPC_METHOD = 'rpc.method';
export const ATTR_RPC_METHOD_ORIGINAL = 'rpc.method_original';
export const ATTR_RPC_JSONRPC_VERSION = 'rpc.jsonrpc.version';
export const ATTR_RPC_JSONRPC_REQUEST_ID = 'rpc.jsonrpc.request_id';
