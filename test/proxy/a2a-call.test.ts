// What the A2A stage reads out of a JSON-RPC body (src/proxy/a2a/call.ts): the method under its 1.0 name, and
// the task id, context id and role CEL `a2a` carries, from 1.0 and 0.3 shapes alike; and what it refuses.
import { describe, expect, it } from 'vitest';
import { readCall } from '../../src/proxy/a2a/call.js';
import { isRestPath } from '../../src/proxy/a2a/a2a-stage.js';

const body = (method: string, params: unknown, id: unknown = 1): Buffer =>
  Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, method, params }));

describe('reading an A2A call', () => {
  it('reads a 1.0 and a 0.3 send alike: method, task, context and role', () => {
    const modern = readCall(
      body('SendMessage', { message: { role: 'ROLE_USER', taskId: 't1', contextId: 'c1', parts: [] } }),
    );
    const legacy = readCall(
      body('message/send', { message: { kind: 'message', role: 'user', taskId: 't1', contextId: 'c1', parts: [] } }),
    );
    const facts = { method: 'SendMessage', taskId: 't1', contextId: 'c1', role: 'user' };
    expect(modern).toEqual({ kind: 'call', id: 1, facts: { ...facts, rpcMethod: 'SendMessage' } });
    expect(legacy).toEqual({ kind: 'call', id: 1, facts: { ...facts, rpcMethod: 'message/send' } });
  });

  it('finds the task of task methods and of push-notification configs in both generations', () => {
    const task = (method: string, params: unknown) => {
      const c = readCall(body(method, params));
      return c.kind === 'call' ? [c.facts.method, c.facts.taskId] : c;
    };
    expect(task('tasks/resubscribe', { id: 't2' })).toEqual(['SubscribeToTask', 't2']);
    expect(task('CancelTask', { id: 't3' })).toEqual(['CancelTask', 't3']);
    // 1.0 names the task `taskId` and the config `id`; 0.3's get names the task `id`.
    expect(task('GetTaskPushNotificationConfig', { taskId: 't4', id: 'cfg' })).toEqual([
      'GetTaskPushNotificationConfig',
      't4',
    ]);
    expect(task('tasks/pushNotificationConfig/get', { id: 't5', pushNotificationConfigId: 'cfg' })).toEqual([
      'GetTaskPushNotificationConfig',
      't5',
    ]);
    // The agent reads 0.3's get by `id`: a decoy `taskId` beside it is not what rules see.
    expect(task('tasks/pushNotificationConfig/get', { id: 'sealed', taskId: 'decoy' })).toEqual([
      'GetTaskPushNotificationConfig',
      'sealed',
    ]);
    expect(task('agent/getAuthenticatedExtendedCard', {})).toEqual(['GetExtendedAgentCard', '']);
    // A method A2A does not define keeps its own name.
    expect(task('tasks/explode', { id: 't6' })).toEqual(['tasks/explode', 't6']);
  });

  it('refuses what is not one JSON-RPC request: not JSON, a batch, no id, too deep', () => {
    expect(readCall(Buffer.from('{'))).toMatchObject({ kind: 'unreadable', code: -32700 });
    expect(readCall(Buffer.from('[]'))).toMatchObject({ kind: 'unreadable', code: -32600, id: null });
    expect(readCall(Buffer.from('{"jsonrpc":"2.0","method":"GetTask"}'))).toMatchObject({ kind: 'unreadable' });
    expect(readCall(Buffer.from('{"jsonrpc":"1.0","id":4,"method":"GetTask"}'))).toMatchObject({
      kind: 'unreadable',
      id: 4,
    });
    const deep = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":${'['.repeat(200)}${']'.repeat(200)}}`;
    expect(readCall(Buffer.from(deep))).toMatchObject({ kind: 'unreadable', code: -32600 });
  });

  it("knows the HTTP+JSON binding's paths, which a route with rules refuses (the path, not the body, names the method there)", () => {
    for (const p of [
      '/a/tasks/T:cancel',
      '/a/message:send',
      '/v1/tasks/T',
      '/a/tasks/T/pushNotificationConfigs',
      '/a/extendedAgentCard',
      '/v1/card',
    ])
      expect(isRestPath(p), p).toBe(true);
    for (const p of ['/', '/a2a', '/agents/billing/']) expect(isRestPath(p), p).toBe(false);
  });
});
