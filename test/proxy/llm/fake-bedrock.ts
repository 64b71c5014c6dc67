// A loopback FAKE of the Amazon Bedrock runtime Converse API (the real service cannot be reached from
// tests). It VERIFIES each request's SigV4 signature with its own canonicalisation (written from AWS's
// documentation, sharing no code with src/proxy/llm/sigv4.ts) and answers Converse JSON, or ConverseStream
// in the AWS event-stream binary framing (CRCs from node:zlib, not the proxy's decoder), cut into small
// pieces so frames straddle reads.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';

export interface BedrockReceived {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** The signature checked out against the secret of the access key it names. */
  signatureValid: boolean;
  /** The access key id and scope (`day/region/service`) of the signature. */
  accessKeyId: string;
  scope: string;
}

/** ok: text; tool: a tool call; status: an AWS error; exception: a stream that reports an exception; corrupt: a frame with a bad CRC. */
export type BedrockMode =
  | { kind: 'ok' }
  | { kind: 'tool' }
  | { kind: 'status'; status: number; type: string }
  | { kind: 'exception' }
  | { kind: 'corrupt' };

export interface FakeBedrock {
  port: number;
  received: BedrockReceived[];
  mode: BedrockMode;
  close(): Promise<void>;
}

export const BEDROCK_USAGE = { inputTokens: 9, outputTokens: 4, totalTokens: 13 };
/** What the fake adds to its usage when the request carries a `cachePoint`, as Bedrock reports cache use. */
export const BEDROCK_CACHE_USAGE = { cacheReadInputTokens: 50, cacheWriteInputTokens: 8 };

const usageFor = (cached: boolean): Record<string, number> =>
  cached ? { ...BEDROCK_USAGE, ...BEDROCK_CACHE_USAGE } : BEDROCK_USAGE;

const sha256 = (v: string | Buffer): string => createHash('sha256').update(v).digest('hex');
const hmac = (k: string | Buffer, v: string): Buffer => createHmac('sha256', k).update(v).digest();
const rfc3986 = (s: string): string =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());

/** Recomputes the SigV4 signature of a received request from the request itself (the AgentCore fake reuses it). */
export function verify(
  req: IncomingMessage,
  body: Buffer,
  secrets: Record<string, string>,
): { valid: boolean; accessKeyId: string; scope: string } {
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      String(req.headers.authorization ?? ''),
    );
  if (!m) return { valid: false, accessKeyId: '', scope: '' };
  const [, akid = '', day = '', region = '', service = '', signedHeaders = '', signature = ''] = m;
  const scope = `${day}/${region}/${service}`;
  const secret = secrets[akid];
  const date = String(req.headers['x-amz-date'] ?? '');
  if (!secret || !date.startsWith(day)) return { valid: false, accessKeyId: akid, scope };
  const [rawPath = '/', rawQuery = ''] = (req.url ?? '/').split('?');
  // Non-S3 services: the path as sent is encoded once more, segment by segment.
  const uri = rawPath.split('/').map(rfc3986).join('/');
  const query = rawQuery ? rawQuery.split('&').sort().join('&') : '';
  const names = signedHeaders.split(';');
  const canonicalHeaders = names.map((n) => `${n}:${String(req.headers[n] ?? '').trim()}\n`).join('');
  const creq = `${req.method}\n${uri}\n${query}\n${canonicalHeaders}\n${signedHeaders}\n${sha256(body)}`;
  const sts = `AWS4-HMAC-SHA256\n${date}\n${scope}/aws4_request\n${sha256(creq)}`;
  const key = hmac(hmac(hmac(hmac('AWS4' + secret, day), region), service), 'aws4_request');
  const expected = Buffer.from(createHmac('sha256', key).update(sts).digest('hex'));
  return {
    valid: expected.length === signature.length && timingSafeEqual(expected, Buffer.from(signature)),
    accessKeyId: akid,
    scope,
  };
}

/** One event-stream message: prelude, string headers, JSON payload, CRCs. */
export function frame(headers: Record<string, string>, payload: unknown, breakCrc = false): Buffer {
  const hs = Buffer.concat(
    Object.entries(headers).map(([k, v]) => {
      const name = Buffer.from(k),
        value = Buffer.from(v);
      const len = Buffer.alloc(2);
      len.writeUInt16BE(value.length);
      return Buffer.concat([Buffer.from([name.length]), name, Buffer.from([7]), len, value]);
    }),
  );
  const body = Buffer.from(JSON.stringify(payload));
  const total = 12 + hs.length + body.length + 4;
  const prelude = Buffer.alloc(12);
  prelude.writeUInt32BE(total, 0);
  prelude.writeUInt32BE(hs.length, 4);
  prelude.writeUInt32BE(crc32(prelude.subarray(0, 8)), 8);
  const head = Buffer.concat([prelude, hs, body]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE((crc32(head) + (breakCrc ? 1 : 0)) >>> 0);
  return Buffer.concat([head, crc]);
}

const event = (type: string, payload: unknown): Buffer =>
  frame({ ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' }, payload);

function streamFrames(mode: BedrockMode, cached: boolean): Buffer[] {
  const start = event('messageStart', { role: 'assistant' });
  const end = (stop: string) => [
    event('messageStop', { stopReason: stop }),
    event('metadata', { usage: usageFor(cached), metrics: { latencyMs: 12 } }),
  ];
  if (mode.kind === 'tool') {
    return [
      start,
      event('contentBlockStart', {
        contentBlockIndex: 1,
        start: { toolUse: { toolUseId: 'tu-1', name: 'get_weather' } },
      }),
      event('contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: '{"city":' } } }),
      event('contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: '"Paris"}' } } }),
      event('contentBlockStop', { contentBlockIndex: 1 }),
      ...end('tool_use'),
    ];
  }
  const hel = event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hel' } });
  if (mode.kind === 'exception')
    return [
      start,
      hel,
      frame(
        { ':exception-type': 'throttlingException', ':content-type': 'application/json', ':message-type': 'exception' },
        { message: 'fake: slow down' },
      ),
    ];
  if (mode.kind === 'corrupt')
    return [
      start,
      hel,
      frame(
        { ':event-type': 'contentBlockDelta', ':message-type': 'event' },
        { contentBlockIndex: 0, delta: { text: 'lo' } },
        true,
      ),
    ];
  return [
    start,
    hel,
    event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'lo' } }),
    event('contentBlockStop', { contentBlockIndex: 0 }),
    ...end('end_turn'),
  ];
}

function converse(mode: BedrockMode, cached: boolean): unknown {
  const content =
    mode.kind === 'tool'
      ? [{ text: 'Checking.' }, { toolUse: { toolUseId: 'tu-1', name: 'get_weather', input: { city: 'Paris' } } }]
      : [{ text: 'Hello' }];
  return {
    output: { message: { role: 'assistant', content } },
    stopReason: mode.kind === 'tool' ? 'tool_use' : 'end_turn',
    usage: usageFor(cached),
    metrics: { latencyMs: 12 },
  };
}

/** `secrets`: secret access key by access key id, the keys the fake accepts. */
export async function startFakeBedrock(secrets: Record<string, string>): Promise<FakeBedrock> {
  const received: BedrockReceived[] = [];
  const fake = { mode: { kind: 'ok' } as BedrockMode };
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw.toString()) as Record<string, unknown>;
      } catch {
        /* recorded as empty */
      }
      const v = verify(req, raw, secrets);
      received.push({
        path: req.url ?? '',
        headers: req.headers,
        body,
        signatureValid: v.valid,
        accessKeyId: v.accessKeyId,
        scope: v.scope,
      });
      const error = (status: number, type: string, message: string): void => {
        res.writeHead(status, {
          'content-type': 'application/json',
          'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
        });
        res.end(JSON.stringify({ message }));
      };
      if (!v.valid) return error(403, 'InvalidSignatureException', 'fake: the request signature does not match');
      const mode = fake.mode;
      const cached = raw.includes('"cachePoint"');
      if (mode.kind === 'status') return error(mode.status, mode.type, `fake ${mode.status}`);
      if (!(req.url ?? '').endsWith('/converse-stream')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(converse(mode, cached)));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
      const bytes = Buffer.concat(streamFrames(mode, cached));
      // Small pieces with pauses: frames straddle the proxy's reads.
      let at = 0;
      const next = (): void => {
        if (at >= bytes.length) return void res.end();
        res.write(bytes.subarray(at, at + 37));
        at += 37;
        setImmediate(next);
      };
      next();
    });
  };
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(fake, {
    port: (server.address() as AddressInfo).port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}
