// Original file: proto/gw/ir/v1/ir.proto


export interface AwsBackend {
  'agentRuntimeArn'?: (string);
  'qualifier'?: (string);
}

export interface AwsBackend__Output {
  'agentRuntimeArn': (string);
  'qualifier': (string);
}
