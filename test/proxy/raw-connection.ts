// A raw HTTP/1.1 client connection for tests that need to know which connection a request goes on (a
// kept-alive one across a configuration change): no agent, no retry on a fresh connection.
import { connect, type Socket } from 'node:net';

export interface Answer {
  head: string;
  body: string;
}

/** A raw HTTP/1.1 connection: `send` writes one request and resolves with its response (Content-Length bodies). */
export async function rawConnection(port: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  let buffered = '';
  let waiting: ((a: Answer) => void) | undefined;
  const take = (): void => {
    const end = buffered.indexOf('\r\n\r\n');
    if (end < 0 || !waiting) return;
    const head = buffered.slice(0, end);
    const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
    if (buffered.length < end + 4 + length) return;
    const body = buffered.slice(end + 4, end + 4 + length);
    buffered = buffered.slice(end + 4 + length);
    const w = waiting;
    waiting = undefined;
    w({ head, body });
  };
  socket.on('data', (c: Buffer) => {
    buffered += c.toString('latin1');
    take();
  });
  return {
    closed,
    send(path: string): Promise<Answer> {
      return new Promise<Answer>((resolve, reject) => {
        waiting = resolve;
        void closed.then(() => reject(new Error(`connection closed before the answer to ${path}`)));
        socket.write(`GET ${path} HTTP/1.1\r\nHost: gw.test\r\n\r\n`);
      });
    },
  };
}
