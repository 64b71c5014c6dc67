// A scripted stand-in for the API server's list and watch of one resource (ConfigMaps), for informer
// tests that need failures a real server will not produce on demand: 410 Gone, dropped streams, 404.
// The real API server is exercised by test/e2e/controller; this fake only drives the error paths.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

export interface FakeObject {
  metadata: { name: string; namespace: string; resourceVersion: string };
  data?: Record<string, string>;
}

export class FakeApiServer {
  private server = http.createServer((req, res) => this.handle(req, res));
  private rv = 1;
  readonly objects = new Map<string, FakeObject>();
  private watchers = new Set<http.ServerResponse>();
  /** Requests seen, as `LIST` or `WATCH rv=<n>`. */
  readonly requests: string[] = [];
  /** When set, the next watch is answered with an ERROR 410 event. */
  goneOnNextWatch = false;
  /** While true, the resource is not served (404), as when its CRD is absent. */
  notFound = false;
  /** Requests answered 404 (while `notFound`, or for another path). */
  notFoundAnswers = 0;

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  kubeConfig(): KubeConfig {
    const kc = new KubeConfig();
    const { port } = this.server.address() as AddressInfo;
    kc.loadFromOptions({
      clusters: [{ name: 'fake', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: 'fake' }],
      contexts: [{ name: 'fake', cluster: 'fake', user: 'fake' }],
      currentContext: 'fake',
    });
    return kc;
  }

  put(name: string, data: Record<string, string>): void {
    const existed = this.objects.has(name);
    const obj: FakeObject = { metadata: { name, namespace: 'ns', resourceVersion: String(++this.rv) }, data };
    this.objects.set(name, obj);
    this.emit(existed ? 'MODIFIED' : 'ADDED', obj);
  }

  remove(name: string): void {
    const obj = this.objects.get(name);
    if (!obj) return;
    this.objects.delete(name);
    this.emit('DELETED', { ...obj, metadata: { ...obj.metadata, resourceVersion: String(++this.rv) } });
  }

  /** Changes an object without telling open watches (as if the event was lost to compaction). */
  putSilently(name: string, data: Record<string, string>): void {
    this.objects.set(name, { metadata: { name, namespace: 'ns', resourceVersion: String(++this.rv) }, data });
  }

  /** Cuts every open watch stream mid-flight. */
  dropWatches(): void {
    for (const w of this.watchers) w.destroy();
    this.watchers.clear();
  }

  async stop(): Promise<void> {
    this.dropWatches();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private emit(type: string, object: FakeObject): void {
    for (const w of this.watchers) w.write(`${JSON.stringify({ type, object })}\n`);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://x');
    if (this.notFound || url.pathname !== '/api/v1/configmaps') {
      this.notFoundAnswers++;
      res.writeHead(404, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          kind: 'Status',
          code: 404,
          reason: 'NotFound',
          message: 'the server could not find the requested resource',
        }),
      );
      return;
    }
    if (url.searchParams.get('watch') === 'true') {
      this.requests.push(`WATCH rv=${url.searchParams.get('resourceVersion') ?? ''}`);
      res.writeHead(200, { 'content-type': 'application/json' });
      if (this.goneOnNextWatch) {
        this.goneOnNextWatch = false;
        res.end(
          `${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' } })}\n`,
        );
        return;
      }
      this.watchers.add(res);
      res.on('close', () => this.watchers.delete(res));
      return;
    }
    this.requests.push('LIST');
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ metadata: { resourceVersion: String(this.rv) }, items: [...this.objects.values()] }));
  }
}
