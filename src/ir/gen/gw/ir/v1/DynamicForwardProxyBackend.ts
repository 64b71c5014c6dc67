// Original file: proto/gw/ir/v1/ir.proto


/**
 * Each request goes to the host its Host header names (docs/proxy.md "Dynamic forward proxy").
 */
export interface DynamicForwardProxyBackend {
}

/**
 * Each request goes to the host its Host header names (docs/proxy.md "Dynamic forward proxy").
 */
export interface DynamicForwardProxyBackend__Output {
}
