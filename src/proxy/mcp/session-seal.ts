// Sealed MCP session ids: the id a client holds carries what any replica or worker needs to resume the
// session (route, target sessions, protocol version, client capabilities, subject, expiry), encrypted
// and authenticated with AES-256-GCM, so a replica that never saw the session can serve it and a
// forged, altered or expired id opens to nothing (docs/proxy.md "Sessions across replicas and workers").
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { SessionKeys } from './session-keys.js';

/** One target of a session as sealed: its session id at the target (none for process-local targets). */
export interface SealedTarget {
  name: string;
  sessionId?: string;
  protocolVersion?: string;
  capabilities: ServerCapabilities;
}

export interface SessionState {
  route: string;
  protocolVersion: string;
  clientCapabilities: Record<string, unknown>;
  clientInfo: { name: string; version: string };
  /** `iss` + `sub` the session is bound to (sessions.ts subjectOf). */
  subject?: string;
  /** Milliseconds since the epoch after which the id opens to nothing. */
  expiresAt: number;
  targets: SealedTarget[];
}

const formatVersion = 1;
const aad = Buffer.from('gw mcp session v1');
/** Sealed text longer than this opens to nothing (a session id travels in a header; a requestState in a body). */
const maxSealedChars = 65536;
/**
 * What a client puts into its sealed id is bounded, because the id travels in every request header: the
 * capabilities and the clientInfo it sends with initialize, each at most this many bytes of JSON.
 */
export const maxSealedClientBytes = 2048;

/** Why an initialize's params would make an unbounded session id (naming the field), or undefined. */
export function sealedParamsTooLarge(params: Record<string, unknown> | undefined): string | undefined {
  for (const field of ['clientInfo', 'capabilities'] as const) {
    const size = Buffer.byteLength(JSON.stringify(params?.[field] ?? {}));
    if (size > maxSealedClientBytes)
      return `params.${field} takes ${size} bytes of JSON; at most ${maxSealedClientBytes} are accepted, since it is sealed into the session id`;
  }
  return undefined;
}

const capabilityBits: [keyof ServerCapabilities, number][] = [
  ['tools', 1],
  ['prompts', 2],
  ['resources', 4],
  ['logging', 8],
  ['completions', 16],
];
const subscribeBit = 32;

function capsToBits(c: ServerCapabilities): number {
  let bits = 0;
  for (const [k, b] of capabilityBits) if (c[k]) bits |= b;
  if (c.resources?.subscribe === true) bits |= subscribeBit;
  return bits;
}

function bitsToCaps(bits: number): ServerCapabilities {
  const out: ServerCapabilities = {};
  for (const [k, b] of capabilityBits) if (bits & b) (out as Record<string, unknown>)[k] = {};
  if (out.resources && bits & subscribeBit) out.resources = { subscribe: true };
  return out;
}

/** Compact positional JSON: the id travels in every request header. */
function encode(s: SessionState): string {
  return JSON.stringify([
    s.route,
    s.protocolVersion,
    s.clientCapabilities,
    [s.clientInfo.name, s.clientInfo.version],
    s.subject ?? null,
    s.expiresAt,
    s.targets.map((t) => [t.name, t.sessionId ?? null, t.protocolVersion ?? null, capsToBits(t.capabilities)]),
  ]);
}

function decode(text: string): SessionState | undefined {
  const v: unknown = JSON.parse(text);
  if (!Array.isArray(v) || v.length !== 7) return undefined;
  const [route, pv, caps, info, subject, expiresAt, targets] = v as unknown[];
  if (typeof route !== 'string' || typeof pv !== 'string' || typeof expiresAt !== 'number') return undefined;
  if (!isObject(caps) || !Array.isArray(info) || !Array.isArray(targets)) return undefined;
  return {
    route,
    protocolVersion: pv,
    clientCapabilities: caps,
    clientInfo: { name: String(info[0]), version: String(info[1]) },
    ...(typeof subject === 'string' ? { subject } : {}),
    expiresAt,
    targets: (targets as unknown[][]).map(([name, sid, tpv, bits]) => ({
      name: String(name),
      ...(typeof sid === 'string' ? { sessionId: sid } : {}),
      ...(typeof tpv === 'string' ? { protocolVersion: tpv } : {}),
      capabilities: bitsToCaps(Number(bits)),
    })),
  };
}

export class SessionSealer {
  constructor(private readonly keys: SessionKeys) {}

  seal(state: SessionState): string {
    return this.sealText(aad, encode(state));
  }

  /** The state of a genuine, unexpired id; undefined for anything else. */
  open(id: string, now = Date.now()): SessionState | undefined {
    const text = id.length > 8192 ? undefined : this.openText(aad, id);
    const state = text === undefined ? undefined : decode(text);
    return state && state.expiresAt > now ? state : undefined;
  }

  /** Any JSON value sealed the way session ids are, for one `purpose` (an id of one purpose opens to nothing in another). */
  sealValue(purpose: string, value: unknown): string {
    return this.sealText(Buffer.from(purpose), JSON.stringify(value));
  }

  openValue(purpose: string, sealed: string): unknown {
    const text = this.openText(Buffer.from(purpose), sealed);
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  }

  /** version byte, 12-byte IV, ciphertext, 16-byte tag; base64url (visible ASCII, as MCP requires). */
  private sealText(additional: Buffer, text: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.issue, iv).setAAD(additional);
    const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.of(formatVersion), iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  private openText(additional: Buffer, sealed: string): string | undefined {
    if (sealed.length > maxSealedChars || !/^[A-Za-z0-9_-]+$/.test(sealed)) return undefined;
    const raw = Buffer.from(sealed, 'base64url');
    if (raw.length < 1 + 12 + 16 + 2 || raw[0] !== formatVersion) return undefined;
    const iv = raw.subarray(1, 13);
    const tag = raw.subarray(raw.length - 16);
    const body = raw.subarray(13, raw.length - 16);
    for (const key of this.keys.accept) {
      try {
        const d = createDecipheriv('aes-256-gcm', key, iv).setAAD(additional).setAuthTag(tag);
        return Buffer.concat([d.update(body), d.final()]).toString('utf8');
      } catch {
        // not sealed with this key; try the next
      }
    }
    return undefined;
  }
}

/** `iss` + `sub` of a validated token, the identity a session is bound to; undefined without one. */
export function subjectOf(claims: Record<string, unknown> | null): string | undefined {
  const sub = claims?.sub;
  if (typeof sub !== 'string' || sub === '') return undefined;
  const iss = typeof claims?.iss === 'string' ? claims.iss : '';
  return `sub ${iss} ${sub}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
