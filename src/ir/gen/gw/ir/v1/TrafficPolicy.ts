// Original file: proto/gw/ir/v1/traffic.proto


/**
 * The route's effective traffic policy, typed; unset means none of these settings.
 */
export interface TrafficPolicy {
}

/**
 * The route's effective traffic policy, typed; unset means none of these settings.
 */
export interface TrafficPolicy__Output {
}
