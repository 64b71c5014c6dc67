// Original file: proto/gw/ir/v1/ir.proto


/**
 * An AgentCore runtime, invoked with SigV4-signed InvokeAgentRuntime calls (docs/proxy.md "AWS AgentCore backends").
 */
export interface AwsBackend {
  'agentRuntimeArn'?: (string);
  'qualifier'?: (string);
}

/**
 * An AgentCore runtime, invoked with SigV4-signed InvokeAgentRuntime calls (docs/proxy.md "AWS AgentCore backends").
 */
export interface AwsBackend__Output {
  'agentRuntimeArn': (string);
  'qualifier': (string);
}
