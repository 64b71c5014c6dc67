// What the transformation bench serves, shared by its proxy process (proxy.ts) and its engine loop (main.ts):
// the `plain` route (no policy) and the `shaped` route, whose traffic.transformation.request has 5 header
// transformations (3 set from CEL over the request, 1 add, 1 remove) and a body built from the request's JSON
// with 2 fields set and one carried over; and the JSON body both routes are sent.
import type { Transformation } from '../../src/ir/types.js';
import { translatedIr } from '../../test/proxy/translated-ir.js';
import { trafficManifests } from '../../test/proxy/traffic-manifests.js';

const headers = [
  `set: [{name: X-Tenant, value: "request.headers['x-user'] + '@' + request.host"}, {name: X-Route, value: "'shaped'"}, {name: X-Method, value: request.method}]`,
  `add: [{name: X-Via, value: "'gw'"}]`,
  `remove: [X-Debug]`,
].join(', ');
const body = `body: "{'model': 'gpt-small', 'user': request.headers['x-user'], 'messages': request.json.messages}"`;

/** The IR snapshot of both routes, forwarding to 127.0.0.1:`upstreamPort`. */
export function benchIr(upstreamPort: number): ReturnType<typeof translatedIr> {
  return translatedIr(
    trafficManifests(upstreamPort, [
      { name: 'plain', traffic: '{}' },
      { name: 'shaped', traffic: `{transformation: {request: {${headers}, ${body}}}}` },
    ]),
  );
}

/** The shaped route's transformation as the IR carries it (for the engine loop). */
export const shapedTransformation: Transformation = {
  request: {
    set: [
      { name: 'X-Tenant', expression: "request.headers['x-user'] + '@' + request.host" },
      { name: 'X-Route', expression: "'shaped'" },
      { name: 'X-Method', expression: 'request.method' },
    ],
    add: [{ name: 'X-Via', expression: "'gw'" }],
    remove: ['X-Debug'],
    body: "{'model': 'gpt-small', 'user': request.headers['x-user'], 'messages': request.json.messages}",
  },
  response: null,
};

/** The 200-byte chat body both routes are sent. */
export const payload = JSON.stringify({
  model: 'gpt-large',
  messages: [
    { role: 'system', content: 'You answer briefly.' },
    { role: 'user', content: 'What is the capital of France?' },
  ],
  max_tokens: 64,
});

/** The headers both routes are sent (the shaped route reads `x-user` and removes `x-debug`). */
export const requestHeaders = { 'content-type': 'application/json', 'x-user': 'ann', 'x-debug': '1' };
