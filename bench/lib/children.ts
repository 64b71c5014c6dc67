// Helpers for benches that run Gw and its upstreams as child processes.
import type { ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { request, type Agent } from 'undici';

/** The child's first line on stdout (an upstream prints its URL); the rest is drained so it never blocks. */
export async function firstLine(proc: ChildProcess): Promise<string> {
  const it = createInterface({ input: proc.stdout! })[Symbol.asyncIterator]();
  const exited = new Promise<never>((_, reject) => proc.once('exit', (c) => reject(new Error(`exited: ${c}`))));
  const first = await Promise.race([it.next(), exited]);
  void (async () => {
    for await (const _ of it);
  })();
  return String(first.value).trim();
}

/** Polls until the URL answers 200 (a proxy's readiness: every worker ready). */
export async function until200(url: string, proc: ChildProcess, agent: Agent): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (proc.exitCode !== null) throw new Error(`${url}: the process exited with ${proc.exitCode}`);
    const ok = await request(url, { dispatcher: agent })
      .then(async (r) => (await r.body.dump(), r.statusCode === 200))
      .catch(() => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} never answered 200`);
}

/** A loopback port free a moment ago (for a child's flag: the child binds it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}
