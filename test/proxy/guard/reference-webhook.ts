// The seed 000 reference guardrail webhook, for real on loopback: request content containing `block` →
// 403 `request blocked`; response content containing `mask` → 200 with the word replaced by `****`.
// It speaks the body contract of docs/guardrails.md and records every call it gets.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedCall {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface ReferenceWebhook {
  port: number;
  calls: RecordedCall[];
  /** Test knobs: answer late, or answer this raw text with 200 instead of the reference behaviour. */
  delayMs: number;
  rawAnswer?: string;
  /** Connections accepted so far. */
  connectionsOpened: number;
  close(): Promise<void>;
}

type Message = { role?: string; content?: unknown };

const textOf = (m: Message | undefined): string => (typeof m?.content === 'string' ? m.content : '');

export async function startReferenceWebhook(): Promise<ReferenceWebhook> {
  const hook: ReferenceWebhook = {
    port: 0,
    calls: [],
    delayMs: 0,
    connectionsOpened: 0,
    close: () => Promise.resolve(),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      hook.calls.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      setTimeout(() => {
        if (res.destroyed) return;
        if (hook.rawAnswer !== undefined) {
          res.writeHead(200, { 'content-type': 'application/json' }).end(hook.rawAnswer);
          return;
        }
        if (body.phase === 'request') {
          const messages = (body.messages ?? []) as Message[];
          if (messages.some((m) => textOf(m).includes('block'))) {
            res.writeHead(403, { 'content-type': 'text/plain' }).end('request blocked');
            return;
          }
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ action: 'allow' }));
          return;
        }
        const choices = (body.choices ?? []) as { message?: Message }[];
        if (!choices.some((c) => textOf(c.message).includes('mask'))) {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ action: 'allow' }));
          return;
        }
        const masked = choices.map((c) => ({
          ...c,
          message: { ...c.message, content: textOf(c.message).replaceAll('mask', '****') },
        }));
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ action: 'modify', choices: masked }));
      }, hook.delayMs);
    });
  });
  server.on('connection', () => {
    hook.connectionsOpened++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hook.port = (server.address() as AddressInfo).port;
  hook.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return hook;
}
