// Agent cards served through a route name the gateway, not the agent: a client reads the card and then calls
// the URLs in it, which would otherwise be the agent's own address (unreachable, or a way around the
// gateway's policies). Pure: the card, where the client asked for it and where the agent was asked, in;
// the card to send out. Rules (docs/proxy.md "A2A backends"):
// - Interface URLs (1.0 `supportedInterfaces[].url`, 0.3 `url` and `additionalInterfaces[].url`) get the
//   gateway's origin, and their path is mapped back through the route's URL rewrite.
// - Interfaces the gateway cannot read methods of (gRPC, HTTP+JSON) are left out: what is advertised is policed.
// - Signatures cover the card as the agent wrote it and cannot survive a rewrite: a rewritten card goes out
//   without `signatures`. Other URLs (provider, documentation, icon, OAuth endpoints) are not the agent's
//   address and are kept.

/** Where a card was fetched: the gateway's origin as the client reached it, and the agent's base path both ways. */
export interface CardPlace {
  /** `https://gw.example.com:8443`: the request's scheme (the listener's TLS) and Host. */
  origin: string;
  /** The path the card's interfaces live under as the client asked: the card path without its well-known part. */
  clientBase: string;
  /** The same path as the agent was asked (after the route's rewrite). */
  upstreamBase: string;
}

/** The binding the gateway reads methods of (1.0 `protocolBinding`, 0.3 `transport`). */
const POLICED_BINDING = 'JSONRPC';

/** An agent URL as the client reaches it through the gateway; undefined when it is not an http(s) URL. */
function throughGateway(url: unknown, p: CardPlace): string | undefined {
  if (typeof url !== 'string') return undefined;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  const upstream = p.upstreamBase.replace(/\/$/, '');
  const under = u.pathname === upstream || u.pathname.startsWith(`${upstream}/`);
  const rest = under ? u.pathname.slice(upstream.length) : u.pathname;
  const path = `${p.clientBase.replace(/\/$/, '')}${rest}` || '/';
  return `${p.origin}${path}${u.search}`;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** An interface list with JSON-RPC entries pointed at the gateway and the others left out. */
function interfaces(list: unknown, bindingKey: string, p: CardPlace): Json[] {
  if (!Array.isArray(list)) return [];
  const out: Json[] = [];
  for (const i of list) {
    if (!isObject(i) || String(i[bindingKey] ?? '').toUpperCase() !== POLICED_BINDING) continue;
    const url = throughGateway(i.url, p);
    if (url) out.push({ ...i, url });
  }
  return out;
}

/** The card as the client gets it through the gateway; a value that is not an object is returned as is. */
export function rewriteCard(card: unknown, p: CardPlace): unknown {
  if (!isObject(card)) return card;
  const out: Json = { ...card };
  delete out.signatures;
  if ('supportedInterfaces' in card)
    out.supportedInterfaces = interfaces(card.supportedInterfaces, 'protocolBinding', p);
  if ('additionalInterfaces' in card) out.additionalInterfaces = interfaces(card.additionalInterfaces, 'transport', p);
  if ('url' in card) {
    // 0.3: `url` is served in `preferredTransport` (JSON-RPC when unset); another binding gives way to JSON-RPC.
    const preferred = String(card.preferredTransport ?? POLICED_BINDING).toUpperCase();
    const jsonRpc = (out.additionalInterfaces as Json[] | undefined)?.[0]?.url;
    const url = preferred === POLICED_BINDING ? throughGateway(card.url, p) : jsonRpc;
    out.url = url ?? `${p.origin}${p.clientBase.replace(/\/$/, '') || '/'}`;
    if (preferred !== POLICED_BINDING) out.preferredTransport = POLICED_BINDING;
  }
  return out;
}

/** The well-known card paths: `agent-card.json` (0.3 and 1.0) and the older `agent.json`. */
const CARD_PATH = /\/\.well-known\/agent(-card)?\.json$/;

/** A card path without its well-known part: the base its interfaces are under (`/a/.well-known/agent.json` → `/a`). */
export const cardBase = (path: string): string => path.replace(CARD_PATH, '');

/** Whether a request fetches the public agent card. */
export function isCardFetch(method: string | undefined, path: string): boolean {
  return method === 'GET' && CARD_PATH.test(path);
}
