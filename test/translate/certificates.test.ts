// HTTPS listener certificates: Secret and ReferenceGrant changes reach the gateways that read them,
// and key material never shows up in status, problems or golden output.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseManifests } from '../../src/controller/local/manifests.js';
import type { ListenerInput } from '../../src/ir/types.js';
import { affectedGateways, applyChange, snapshots, translateAll } from '../../src/translate/state.js';
import { createStore, putObject, type Store } from '../../src/translate/objects/store.js';
import { goldenCaseFiles, goldenInput, goldenOptions, renderGolden } from './golden-render.js';

const dir = join(import.meta.dirname, 'testdata');
const tlsDir = join(import.meta.dirname, '../proxy/tls-testdata');
const b64 = (file: string) => readFileSync(join(tlsDir, file)).toString('base64');

function load(file: string): { store: Store; text: string } {
  const text = goldenInput(readFileSync(join(dir, file), 'utf8'));
  const store = createStore();
  for (const { kind, obj } of parseManifests(text, file).objects) putObject(store, kind, obj, file);
  return { store, text };
}

function listener(state: ReturnType<typeof translateAll>, name: string): ListenerInput | undefined {
  const r = snapshots(state)
    .get('default/web')
    ?.resources.find((x) => x.kind === 'listener' && x.listener.name === name);
  return r?.kind === 'listener' ? r.listener : undefined;
}

describe('HTTPS listener certificates', () => {
  it('re-translates the gateway when its certificate Secret is rotated', () => {
    const { store, text } = load('https-listener.yaml');
    const state = translateAll(store, goldenOptions(text));
    const before = snapshots(state).get('default/web')?.version;
    expect(listener(state, 'default/web/https')?.tls?.certificates?.[0]?.certChainPem).toBe(
      readFileSync(join(tlsDir, 'a.crt'), 'utf8'),
    );
    putObject(
      store,
      'Secret',
      {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'kubernetes.io/tls',
        metadata: { name: 'a-cert', namespace: 'default' },
        data: { 'tls.crt': b64('a2.crt'), 'tls.key': b64('a2.key') },
      },
      'rotation',
    );
    expect(affectedGateways(store, 'Secret/default/a-cert', state)).toEqual(['default/web']);
    expect(applyChange(state, store, 'Secret/default/a-cert').gateways).toEqual(['default/web']);
    expect(listener(state, 'default/web/https')?.tls?.certificates?.[0]?.certChainPem).toBe(
      readFileSync(join(tlsDir, 'a2.crt'), 'utf8'),
    );
    expect(snapshots(state).get('default/web')?.version).not.toBe(before);
  });

  it('does not re-translate a gateway for a Secret none of its listeners names', () => {
    const { store, text } = load('https-listener.yaml');
    const state = translateAll(store, goldenOptions(text));
    putObject(
      store,
      'Secret',
      {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'kubernetes.io/tls',
        metadata: { name: 'other', namespace: 'default' },
        data: {},
      },
      'x',
    );
    expect(affectedGateways(store, 'Secret/default/other', state)).toEqual([]);
  });

  it('programs a cross-namespace listener once a ReferenceGrant allows it', () => {
    const { store, text } = load('certificate-cross-namespace-denied.yaml');
    const state = translateAll(store, goldenOptions(text));
    expect(listener(state, 'default/web/https')).toBeUndefined();
    putObject(
      store,
      'ReferenceGrant',
      {
        apiVersion: 'gateway.networking.k8s.io/v1beta1',
        kind: 'ReferenceGrant',
        metadata: { name: 'g', namespace: 'certs' },
        spec: {
          from: [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', namespace: 'default' }],
          to: [{ group: '', kind: 'Secret' }],
        },
      },
      'grant',
    );
    expect(applyChange(state, store, 'ReferenceGrant/certs/g').gateways).toEqual(['default/web']);
    expect(listener(state, 'default/web/https')?.tls?.certificates).toHaveLength(1);
  });

  it('never renders a private key in statuses, problems or golden output', () => {
    const keys = readdirSync(tlsDir)
      .filter((f) => f.endsWith('.key'))
      .map((f) => readFileSync(join(tlsDir, f), 'utf8'));
    const keyLines = keys.flatMap((k) => k.split('\n').filter((l) => l.length > 40));
    const cases = goldenCaseFiles().filter((f) => readFileSync(join(dir, f), 'utf8').includes('{{tls:'));
    expect(cases.length).toBeGreaterThanOrEqual(6);
    for (const file of cases) {
      const out = renderGolden(readFileSync(join(dir, file), 'utf8'), file);
      expect(out, file).not.toContain('PRIVATE KEY');
      for (const line of keyLines) expect(out, file).not.toContain(line);
      for (const k of keys) expect(out, file).not.toContain(Buffer.from(k).toString('base64').slice(0, 40));
    }
  });
});
