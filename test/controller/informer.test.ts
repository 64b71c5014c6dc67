import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Informer, type InformerEvent } from '../../src/controller/informer.js';
import { KubeClient } from '../../src/controller/kube-client.js';
import { WATCHED } from '../../src/controller/resources.js';
import { FakeApiServer } from './fake-apiserver.js';

const silent = pino({ level: 'silent' });

async function until(check: () => boolean, what: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('Informer', () => {
  let api: FakeApiServer;
  let client: KubeClient;
  let informer: Informer | undefined;
  const events: string[] = [];
  const record = (e: InformerEvent) =>
    events.push(
      `${e.type} ${e.obj.metadata.name}${e.type === 'upsert' ? `=${JSON.stringify((e.obj as { data?: unknown }).data)}` : ''}`,
    );

  beforeEach(async () => {
    events.length = 0;
    api = new FakeApiServer();
    await api.start();
    client = new KubeClient(api.kubeConfig());
  });

  afterEach(async () => {
    await informer?.stop();
    client.close();
    await api.stop();
  });

  const start = (resyncMs = 0) => {
    informer = new Informer(client, [WATCHED.ConfigMap], {
      log: silent,
      onEvent: record,
      resyncMs,
      backoffBaseMs: 10,
      backoffMaxMs: 50,
    });
    informer.start();
    return informer;
  };

  it('lists, signals sync, then follows watch events', async () => {
    api.put('a', { v: '1' });
    const inf = start();
    await inf.waitForSync();
    expect(inf.cache.get('ns/a')?.kind).toBe('ConfigMap');
    await until(() => api.requests.includes('WATCH rv=2'), 'the watch from the list version');
    api.put('b', { v: '1' });
    api.put('a', { v: '2' });
    api.remove('b');
    await until(() => events.length === 4, 'four events');
    expect(events).toEqual(['upsert a={"v":"1"}', 'upsert b={"v":"1"}', 'upsert a={"v":"2"}', 'delete b']);
  });

  it('resumes from the last seen resourceVersion after a dropped watch, without relisting', async () => {
    const inf = start();
    await inf.waitForSync();
    await until(() => api.requests.length === 2, 'first watch');
    api.put('a', { v: '1' });
    await until(() => events.length === 1, 'the add');
    api.dropWatches();
    await until(() => api.requests.length === 3, 'the watch to be restarted');
    expect(api.requests).toEqual(['LIST', 'WATCH rv=1', 'WATCH rv=2']);
  });

  it('relists on 410 Gone and reports only what changed meanwhile', async () => {
    api.put('a', { v: '1' });
    api.put('b', { v: '1' });
    const inf = start();
    await inf.waitForSync();
    await until(() => api.requests.length === 2, 'first watch');
    api.putSilently('a', { v: '2' });
    api.objects.delete('b');
    api.goneOnNextWatch = true;
    api.dropWatches();
    await until(() => events.length === 4, 'relist differences');
    expect(events.slice(2)).toEqual(['delete b', 'upsert a={"v":"2"}']);
    expect(api.requests.filter((r) => r === 'LIST')).toHaveLength(2);
  });

  it('keeps retrying a kind that is not served and syncs once it appears', async () => {
    api.notFound = true;
    const inf = start();
    // Refused, then tried again (not given up after the first 404), and still not synced.
    await until(() => api.notFoundAnswers >= 3, 'retries while the kind is not served');
    expect(api.requests).toEqual([]);
    expect(inf.hasSynced).toBe(false);
    api.notFound = false;
    api.put('a', { v: '1' });
    await inf.waitForSync();
    expect(inf.cache.size).toBe(1);
  });

  it('reports every cached object again on resync', async () => {
    api.put('a', { v: '1' });
    const inf = start(50);
    await inf.waitForSync();
    await until(() => events.length >= 3, 'two resyncs');
    expect(events.slice(0, 3)).toEqual(['upsert a={"v":"1"}', 'upsert a={"v":"1"}', 'upsert a={"v":"1"}']);
  });
});
