// API keys chosen by labels (traffic.apiKeyAuthentication secretSelector / configMapSelector): the route's
// IR follows the labelled Secrets as they are added, relabelled and removed, incrementally as fully, and
// the policy's status names a key found twice (ApiKeysUnique) until it is found once.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseManifests } from '../../src/controller/local/manifests.js';
import { applyChange, snapshots, translateAll, type TranslationState } from '../../src/translate/state.js';
import { createStore, putObject, removeObject, type Store } from '../../src/translate/objects/store.js';
import type { KubeObject } from '../../src/translate/objects/types.js';
import { goldenInput, goldenOptions } from './golden-render.js';

const file = join(import.meta.dirname, 'testdata', 'api-key-selectors.yaml');
const sha = (k: string) => createHash('sha256').update(k).digest('hex');

function setup(): { store: Store; state: TranslationState; text: string } {
  const text = goldenInput(readFileSync(file, 'utf8'));
  const store = createStore();
  for (const { kind, obj } of parseManifests(text, 'f').objects) putObject(store, kind, obj, 'f');
  return { store, state: translateAll(store, goldenOptions(text)), text };
}

/** The key hashes the route `name` accepts, or its refusal reasons. */
function routeKeys(state: TranslationState, name: string): { keys?: string[]; refused?: string[] } {
  const snap = snapshots(state).get('default/web');
  const route = snap?.resources.flatMap((r) => (r.kind === 'route' && r.route.name === name ? [r.route] : []))[0];
  const entries = route?.policy?.apiKeyAuthentication?.entries;
  if (entries) return { keys: entries.map((e) => e.keySha256 ?? '') };
  return { refused: (route?.refusals ?? []).map((r) => r.reason ?? '') };
}

function secret(name: string, labels: Record<string, string>, data: Record<string, string>): KubeObject {
  const b64 = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'default', labels }, data: b64 };
}

function change(s: ReturnType<typeof setup>, obj: KubeObject | undefined, name: string): void {
  const previous = obj ? undefined : removeObject(s.store, 'Secret', `default/${name}`);
  if (obj) putObject(s.store, 'Secret', obj, 'f');
  applyChange(s.state, s.store, `Secret/default/${name}`, previous);
  // What changed incrementally is what a full translation of the same store gives.
  expect(snapshots(s.state)).toEqual(snapshots(translateAll(s.store, goldenOptions(s.text))));
}

const policyConditions = (state: TranslationState, name: string) =>
  (
    state.statuses.get(`GwPolicy/default/${name}`) as
      { ancestors: { conditions: { type: string; message: string }[] }[] } | undefined
  )?.ancestors[0]?.conditions ?? [];

describe('API keys chosen by labels', () => {
  it('accepts the keys of every labelled Secret, and no key of an unlabelled one', () => {
    const { state } = setup();
    const { keys } = routeKeys(state, 'HTTPRoute/default/secrets/0');
    expect(keys).toEqual(expect.arrayContaining([sha('sk-alice'), sha('sk-bob')]));
    expect(keys).not.toContain(sha('sk-unlabelled'));
  });

  it('leaves out a key two Secrets hold with different metadata and names both on the policy status', () => {
    const { state } = setup();
    expect(routeKeys(state, 'HTTPRoute/default/secrets/0').keys).not.toContain(sha('sk-shared'));
    const unique = policyConditions(state, 'secrets').find((c) => c.type === 'ApiKeysUnique');
    expect(unique?.message).toContain('Secret keys-b key shared, Secret keys-c key shared hold the same key');
    expect(JSON.stringify(state.statuses.get('GwPolicy/default/secrets'))).not.toContain('sk-shared');
  });

  it('follows a Secret that gains the labels, loses them, and a duplicate that goes away', () => {
    const s = setup();
    const route = 'HTTPRoute/default/secrets/0';
    change(s, secret('unlabelled', { app: 'keys' }, { x: 'sk-unlabelled' }), 'unlabelled');
    expect(routeKeys(s.state, route).keys).toContain(sha('sk-unlabelled'));
    change(s, secret('unlabelled', { app: 'other' }, { x: 'sk-unlabelled' }), 'unlabelled');
    expect(routeKeys(s.state, route).keys).not.toContain(sha('sk-unlabelled'));
    // keys-c goes: sk-shared is found once (keys-b) and accepted; the status stops naming duplicates.
    change(s, undefined, 'keys-c');
    expect(routeKeys(s.state, route).keys).toContain(sha('sk-shared'));
    expect(policyConditions(s.state, 'secrets').map((c) => c.type)).not.toContain('ApiKeysUnique');
  });

  it('starts serving a selector that matched nothing once a labelled Secret appears', () => {
    const s = setup();
    const route = 'HTTPRoute/default/none/0';
    expect(routeKeys(s.state, route).refused).toEqual([
      "secretSelector: no Secret with labels app=nothing in the policy's namespace holds a usable key",
    ]);
    change(s, secret('late', { app: 'nothing' }, { k: 'sk-late' }), 'late');
    expect(routeKeys(s.state, route).keys).toEqual([sha('sk-late')]);
    expect(policyConditions(s.state, 'none').map((c) => c.type)).not.toContain('Enforced');
  });

  it('refuses the route, naming the duplicates, when every key it found is held twice with different metadata', () => {
    const s = setup();
    change(s, undefined, 'keys-a');
    change(s, secret('keys-b', { app: 'keys' }, { shared: '{"key":"sk-shared","metadata":{"group":"a"}}' }), 'keys-b');
    change(s, secret('keys-c', { app: 'keys' }, { shared: '{"key":"sk-shared","metadata":{"group":"b"}}' }), 'keys-c');
    expect(routeKeys(s.state, 'HTTPRoute/default/secrets/0').refused?.[0]).toContain('see ApiKeysUnique');
    expect(policyConditions(s.state, 'secrets').map((c) => c.type)).toEqual(
      expect.arrayContaining(['Enforced', 'ApiKeysUnique']),
    );
  });

  it('reads only keyHash entries from ConfigMaps and refuses a route whose ConfigMap holds a plain key', () => {
    const { state } = setup();
    expect(routeKeys(state, 'HTTPRoute/default/hashes/0').keys).toEqual([sha('sk-carol')]);
    const refused = routeKeys(state, 'HTTPRoute/default/plain/0').refused ?? [];
    expect(refused[0]).toContain('ConfigMap plain key dave');
    expect(refused.join()).not.toContain('sk-dave');
  });
});
