// Original file: proto/gw/ir/v1/ir.proto

import type { ListenerProtocol as _gw_ir_v1_ListenerProtocol, ListenerProtocol__Output as _gw_ir_v1_ListenerProtocol__Output } from '../../../gw/ir/v1/ListenerProtocol.js';
import type { ListenerTls as _gw_ir_v1_ListenerTls, ListenerTls__Output as _gw_ir_v1_ListenerTls__Output } from '../../../gw/ir/v1/ListenerTls.js';
import type { PolicyFields as _gw_ir_v1_PolicyFields, PolicyFields__Output as _gw_ir_v1_PolicyFields__Output } from '../../../gw/ir/v1/PolicyFields.js';
import type { Refusal as _gw_ir_v1_Refusal, Refusal__Output as _gw_ir_v1_Refusal__Output } from '../../../gw/ir/v1/Refusal.js';
import type { ListenerLimits as _gw_ir_v1_ListenerLimits, ListenerLimits__Output as _gw_ir_v1_ListenerLimits__Output } from '../../../gw/ir/v1/ListenerLimits.js';
import type { Authorization as _gw_ir_v1_Authorization, Authorization__Output as _gw_ir_v1_Authorization__Output } from '../../../gw/ir/v1/Authorization.js';
import type { ListenerTelemetry as _gw_ir_v1_ListenerTelemetry, ListenerTelemetry__Output as _gw_ir_v1_ListenerTelemetry__Output } from '../../../gw/ir/v1/ListenerTelemetry.js';
import type { ConnectMode as _gw_ir_v1_ConnectMode, ConnectMode__Output as _gw_ir_v1_ConnectMode__Output } from '../../../gw/ir/v1/ConnectMode.js';
import type { ProxyProtocol as _gw_ir_v1_ProxyProtocol, ProxyProtocol__Output as _gw_ir_v1_ProxyProtocol__Output } from '../../../gw/ir/v1/ProxyProtocol.js';

export interface Listener {
  'name'?: (string);
  /**
   * Name of the parent Bind.
   */
  'bind'?: (string);
  /**
   * Host names served; empty matches every Host header.
   */
  'hostnames'?: (string)[];
  'protocol'?: (_gw_ir_v1_ListenerProtocol);
  /**
   * Set exactly when protocol is HTTPS: the certificates the proxy terminates TLS with.
   */
  'tls'?: (_gw_ir_v1_ListenerTls | null);
  /**
   * Effective frontend policy (Gateway < Listener/port), as merged JSON fields. Diagnostics only (`gw explain`):
   * the controller leaves it out of what it sends proxies (src/controller/snapshot-source.ts).
   */
  'frontend'?: (_gw_ir_v1_PolicyFields | null);
  /**
   * Frontend fields set on this listener that this release does not act on (see Refusal).
   */
  'refusals'?: (_gw_ir_v1_Refusal)[];
  /**
   * Connection and request caps from the listener's merged frontend policy; absent when none is set.
   */
  'limits'?: (_gw_ir_v1_ListenerLimits | null);
  /**
   * spec.frontend.networkAuthorization: CEL rules over `source` and `destination` (address, port) decide
   * whether a connection is served; a refused one is closed before any byte is read. Connections are per
   * port: every listener on the port must allow a connection.
   */
  'networkAuthorization'?: (_gw_ir_v1_Authorization | null);
  /**
   * GwPolicy `frontend.accessLog` and `frontend.tracing` of this listener; absent when neither is set.
   */
  'telemetry'?: (_gw_ir_v1_ListenerTelemetry | null);
  /**
   * spec.frontend.connect.mode: what an HTTP/1.1 CONNECT whose authority selects this listener gets
   * (docs/proxy.md "CONNECT"); unspecified (no connect policy) and Deny answer 405.
   */
  'connectMode'?: (_gw_ir_v1_ConnectMode);
  /**
   * spec.frontend.proxyProtocol: connections on this listener's port start with a PROXY protocol header
   * whose source address becomes the client's. Read before TLS or HTTP, so it holds per port: the listeners
   * sharing a port agree (the translator drops and refuses it otherwise). Absent: no header is read.
   */
  'proxyProtocol'?: (_gw_ir_v1_ProxyProtocol | null);
}

export interface Listener__Output {
  'name': (string);
  /**
   * Name of the parent Bind.
   */
  'bind': (string);
  /**
   * Host names served; empty matches every Host header.
   */
  'hostnames': (string)[];
  'protocol': (_gw_ir_v1_ListenerProtocol__Output);
  /**
   * Set exactly when protocol is HTTPS: the certificates the proxy terminates TLS with.
   */
  'tls': (_gw_ir_v1_ListenerTls__Output | null);
  /**
   * Effective frontend policy (Gateway < Listener/port), as merged JSON fields. Diagnostics only (`gw explain`):
   * the controller leaves it out of what it sends proxies (src/controller/snapshot-source.ts).
   */
  'frontend': (_gw_ir_v1_PolicyFields__Output | null);
  /**
   * Frontend fields set on this listener that this release does not act on (see Refusal).
   */
  'refusals': (_gw_ir_v1_Refusal__Output)[];
  /**
   * Connection and request caps from the listener's merged frontend policy; absent when none is set.
   */
  'limits': (_gw_ir_v1_ListenerLimits__Output | null);
  /**
   * spec.frontend.networkAuthorization: CEL rules over `source` and `destination` (address, port) decide
   * whether a connection is served; a refused one is closed before any byte is read. Connections are per
   * port: every listener on the port must allow a connection.
   */
  'networkAuthorization': (_gw_ir_v1_Authorization__Output | null);
  /**
   * GwPolicy `frontend.accessLog` and `frontend.tracing` of this listener; absent when neither is set.
   */
  'telemetry': (_gw_ir_v1_ListenerTelemetry__Output | null);
  /**
   * spec.frontend.connect.mode: what an HTTP/1.1 CONNECT whose authority selects this listener gets
   * (docs/proxy.md "CONNECT"); unspecified (no connect policy) and Deny answer 405.
   */
  'connectMode': (_gw_ir_v1_ConnectMode__Output);
  /**
   * spec.frontend.proxyProtocol: connections on this listener's port start with a PROXY protocol header
   * whose source address becomes the client's. Read before TLS or HTTP, so it holds per port: the listeners
   * sharing a port agree (the translator drops and refuses it otherwise). Absent: no header is read.
   */
  'proxyProtocol': (_gw_ir_v1_ProxyProtocol__Output | null);
}
