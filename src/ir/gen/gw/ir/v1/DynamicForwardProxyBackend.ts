// Original file: proto/gw/ir/v1/ir.proto


export interface DynamicForwardProxyBackend {
}

export interface DynamicForwardProxyBackend__Output {
}
