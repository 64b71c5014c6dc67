import { fileURLToPath } from 'node:url';
import { loadSync, type MessageTypeDefinition } from '@grpc/proto-loader';
import { describe, expect, it } from 'vitest';
import { createControllerSource, RESOURCE_TYPE } from '../../src/controller/snapshot-source.js';
import { decodeResource } from '../../src/ir/load.js';
import type { BuiltSnapshot } from '../../src/translate/built-ir.js';

const snap = (port: number): BuiltSnapshot => ({
  version: String(port),
  resources: [
    { kind: 'bind', bind: { name: 'ns/web/8080', port: 8080, address: '' } },
    { kind: 'listener', listener: { name: 'ns/web/http', bind: 'ns/web/8080', hostnames: [], protocol: 'HTTP' } },
    { kind: 'bind', bind: { name: 'ns/web/extra', port, address: '' } },
  ],
});

describe('controller snapshot source', () => {
  it('names resources by kind and IR name and encodes them as gw.ir.v1.Resource', () => {
    const s = createControllerSource();
    s.publish('ns/web', snap(9000));
    const r = s.get('ns/web')!;
    expect([...r.keys()].sort()).toEqual(['bind/ns/web/8080', 'bind/ns/web/extra', 'listener/ns/web/http']);
    expect(r.get('bind/ns/web/8080')!.type).toBe(RESOURCE_TYPE);
    const proto = loadSync('gw/ir/v1/ir.proto', {
      includeDirs: [fileURLToPath(new URL('../../proto', import.meta.url))],
      enums: String,
      defaults: true,
      oneofs: true,
    });
    const decoded = (proto['gw.ir.v1.Resource'] as MessageTypeDefinition<object, object>).deserialize(
      Buffer.from(r.get('bind/ns/web/8080')!.body),
    );
    expect(decoded).toMatchObject({ kind: 'bind', bind: { name: 'ns/web/8080', port: 8080 } });
  });

  it('leaves out what only gw explain reads (merged JSON fields and their provenance), and nothing else', () => {
    const explained = { fields: { 'traffic.cors': '{"allowOrigins":["*"]}' }, provenance: {} };
    const s = createControllerSource();
    s.publish('ns/web', {
      version: '1',
      resources: [
        {
          kind: 'listener',
          listener: { name: 'ns/web/http', bind: 'b', hostnames: [], protocol: 'HTTP', frontend: explained },
        },
        {
          kind: 'route',
          route: {
            name: 'ns/r',
            listeners: ['ns/web/http'],
            provenance: { cors: 'GwPolicy ns/p' },
            effective: explained,
            backends: [{ backend: 'ns/b', weight: 3, policy: explained, targetPolicies: { t: explained } }],
          },
        },
      ],
    });
    const held = s.get('ns/web')!;
    const route = decodeResource(held.get('route/ns/r')!.body).route!;
    expect(route.effective).toBeNull();
    expect(route.backends).toHaveLength(1);
    expect(route.backends[0]).toMatchObject({ backend: 'ns/b', weight: 3, policy: null, targetPolicies: {} });
    expect(route.provenance).toEqual({ cors: 'GwPolicy ns/p' }); // read by the proxy: kept
    expect(route.listeners).toEqual(['ns/web/http']);
    const listener = decodeResource(held.get('listener/ns/web/http')!.body).listener!;
    expect(listener.frontend).toBeNull();
    expect(listener.bind).toBe('b');
  });

  it('reuses the body of an unchanged resource and notifies only on change', () => {
    const s = createControllerSource();
    const seen: string[][] = [];
    s.subscribe((g) => seen.push([...g]));
    s.publish('ns/web', snap(9000));
    const first = s.get('ns/web')!;
    s.publish('ns/web', snap(9000));
    expect(seen).toHaveLength(1);
    s.publish('ns/web', snap(9001));
    expect(seen).toHaveLength(2);
    const second = s.get('ns/web')!;
    expect(second.get('bind/ns/web/8080')!.body).toBe(first.get('bind/ns/web/8080')!.body);
    expect(second.get('bind/ns/web/extra')!.body).not.toBe(first.get('bind/ns/web/extra')!.body);
  });

  it('encodes model routing as gw.ir.v1.Resource too and drops a gateway that is gone', () => {
    const s = createControllerSource();
    s.publish('ns/web', {
      version: 'x',
      resources: [
        { kind: 'model', model: { name: 'gpt', parents: ['ns/web/http'], match: { exact: 'gpt' } } } as never,
      ],
    });
    const model = s.get('ns/web')!.get('model/gpt')!;
    expect(model.type).toBe(RESOURCE_TYPE);
    expect(decodeResource(model.body)).toMatchObject({
      kind: 'model',
      model: { name: 'gpt', parents: ['ns/web/http'], match: { exact: 'gpt' } },
    });
    s.publish('ns/web', undefined);
    expect(s.get('ns/web')).toBeUndefined();
  });

  it('is not ready until the controller says its caches are synced', () => {
    const s = createControllerSource();
    expect(s.ready()).toBe(false);
    s.setReady(true);
    expect(s.ready()).toBe(true);
  });
});
