// The smallest store a route test needs: the class, one Gateway `ns/gw` with an HTTP listener on 8080,
// one GwBackend `ns/b`, and an HTTPRoute per name given (one rule, `rule-0`: `/<name>` → `b`); `put`
// adds more and fails the test on any validation problem.
import { expect } from 'vitest';
import { createStore, putObject, type Store } from '../../src/translate/objects/store.js';
import type { KubeObject } from '../../src/translate/objects/types.js';

export type Put = (kind: Parameters<typeof putObject>[1], obj: KubeObject) => void;

export function smallStore(routes: readonly string[] = []): { store: Store; put: Put } {
  const store = createStore();
  const put: Put = (kind, obj) => {
    expect(putObject(store, kind, obj, 'test').problems).toEqual([]);
  };
  put('GatewayClass', {
    kind: 'GatewayClass',
    metadata: { name: 'gw' },
    spec: { controllerName: 'gw.dev/gateway-controller' },
  });
  put('GwBackend', {
    apiVersion: 'gw.dev/v1alpha1',
    kind: 'GwBackend',
    metadata: { name: 'b', namespace: 'ns' },
    spec: { static: { host: '10.0.0.1', port: 8080 } },
  });
  put('Gateway', {
    kind: 'Gateway',
    metadata: { name: 'gw', namespace: 'ns' },
    spec: { gatewayClassName: 'gw', listeners: [{ name: 'http', port: 8080, protocol: 'HTTP' }] },
  });
  for (const r of routes)
    put('HTTPRoute', {
      kind: 'HTTPRoute',
      metadata: { name: r, namespace: 'ns' },
      spec: {
        parentRefs: [{ name: 'gw' }],
        rules: [
          {
            name: 'rule-0',
            matches: [{ path: { type: 'PathPrefix', value: `/${r}` } }],
            backendRefs: [{ group: 'gw.dev', kind: 'GwBackend', name: 'b' }],
          },
        ],
      },
    });
  return { store, put };
}
