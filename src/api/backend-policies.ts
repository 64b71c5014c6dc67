// Backend policy bundles: BackendSimple ⊂ BackendWithAI ⊂ BackendFull (seed 001 "Backend settings").
import { Type, type Static } from './schema-kit.js';
import { BackendTCP, BackendTLS, BackendHTTP, BackendTunnel, Health, Transformation } from './connection.js';
import { BackendAuth } from './backend-auth.js';
import { BackendAI } from './ai.js';
import { BackendMCP } from './mcp.js';
import { ExtAuthPolicy } from './traffic.js';

const simple = {
  tcp: Type.Optional(BackendTCP),
  tls: Type.Optional(BackendTLS),
  http: Type.Optional(BackendHTTP),
  tunnel: Type.Optional(BackendTunnel),
  auth: Type.Optional(BackendAuth),
};
const withAI = {
  ...simple,
  ai: Type.Optional(BackendAI),
  transformation: Type.Optional(Transformation),
  health: Type.Optional(Health),
};

export const BackendSimple = Type.Object(simple);
export const BackendWithAI = Type.Object(withAI);
export const BackendFull = Type.Object({
  ...withAI,
  mcp: Type.Optional(BackendMCP),
  extAuth: Type.Optional(ExtAuthPolicy),
});

export type BackendSimple = Static<typeof BackendSimple>;
export type BackendWithAI = Static<typeof BackendWithAI>;
export type BackendFull = Static<typeof BackendFull>;
