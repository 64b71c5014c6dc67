import { describe, expect, it } from 'vitest';
import { keepTransitionTimes, statusPatch, withConditions, withRejections } from '../../src/controller/status-merge.js';
import { objectOfResource } from '../../src/controller/xds-glue.js';

const ours = 'gw.dev/gateway-controller';
const cond = (type: string, status: 'True' | 'False', t: string, gen = 1) => ({
  type,
  status,
  reason: status === 'True' ? type : 'Invalid',
  message: 'm',
  observedGeneration: gen,
  lastTransitionTime: t,
});
const parent = (name: string, controllerName: string, t: string) => ({
  parentRef: { name },
  controllerName,
  conditions: [cond('Accepted', 'True', t)],
});

describe('statusPatch', () => {
  it('writes nothing when only lastTransitionTime would change', () => {
    const current = { conditions: [cond('Accepted', 'True', '2020-01-01T00:00:00Z')] };
    expect(
      statusPatch('Gateway', current, { conditions: [cond('Accepted', 'True', '2026-01-01T00:00:00Z')] }, ours),
    ).toBeUndefined();
  });

  it('keeps the old lastTransitionTime when the status stays and takes the new one when it flips', () => {
    const current = { conditions: [cond('Accepted', 'True', 'T0'), cond('Programmed', 'True', 'T0')] };
    const patch = statusPatch(
      'Gateway',
      current,
      { conditions: [cond('Accepted', 'True', 'T1', 2), cond('Programmed', 'False', 'T1', 2)] },
      ours,
    );
    expect(patch).toEqual({ conditions: [cond('Accepted', 'True', 'T0', 2), cond('Programmed', 'False', 'T1', 2)] });
  });

  it('writes when observedGeneration moves even if conditions are unchanged', () => {
    const current = { conditions: [cond('Accepted', 'True', 'T0', 1)] };
    expect(statusPatch('GwBackend', current, { conditions: [cond('Accepted', 'True', 'T1', 2)] }, ours)).toEqual({
      conditions: [cond('Accepted', 'True', 'T0', 2)],
    });
  });

  it('leaves route parents of other controllers alone and replaces only ours', () => {
    const current = { parents: [parent('a', 'other.io/ctl', 'T0'), parent('gw', ours, 'T0')] };
    const patch = statusPatch(
      'HTTPRoute',
      current,
      { parents: [parent('gw', ours, 'T1'), parent('gw2', ours, 'T1')] },
      ours,
    );
    expect(patch).toEqual({
      parents: [parent('a', 'other.io/ctl', 'T0'), parent('gw', ours, 'T0'), parent('gw2', ours, 'T1')],
    });
  });

  it('removes our route parents when we no longer have anything to say and keeps the others', () => {
    const current = { parents: [parent('a', 'other.io/ctl', 'T0'), parent('gw', ours, 'T0')] };
    expect(statusPatch('HTTPRoute', current, undefined, ours)).toEqual({
      parents: [parent('a', 'other.io/ctl', 'T0')],
    });
    expect(statusPatch('HTTPRoute', { parents: [parent('a', 'other.io/ctl', 'T0')] }, undefined, ours)).toBeUndefined();
  });

  it('matches listeners by name, not by position, when keeping transition times', () => {
    const prev = {
      listeners: [
        { name: 'b', conditions: [cond('Accepted', 'True', 'TB')] },
        { name: 'a', conditions: [cond('Accepted', 'True', 'TA')] },
      ],
    };
    const next = {
      listeners: [
        { name: 'a', conditions: [cond('Accepted', 'True', 'T1')] },
        { name: 'b', conditions: [cond('Accepted', 'True', 'T1')] },
      ],
    };
    expect(keepTransitionTimes(prev, next).listeners.map((l) => l.conditions[0]!.lastTransitionTime)).toEqual([
      'TA',
      'TB',
    ]);
  });

  it('writes nothing for an object we have nothing to say about', () => {
    expect(statusPatch('Gateway', { conditions: [] }, undefined, ours)).toBeUndefined();
  });
});

describe('withConditions', () => {
  it('replaces conditions of the same type and keeps the rest', () => {
    const s = withConditions({ conditions: [cond('Accepted', 'True', 'T'), cond('Programmed', 'True', 'T')] }, [
      cond('Programmed', 'False', 'T'),
    ]);
    expect(s.conditions).toEqual([cond('Accepted', 'True', 'T'), cond('Programmed', 'False', 'T')]);
  });
});

describe('withRejections', () => {
  it('marks an object with conditions Programmed=False RejectedByProxy', () => {
    const s = withRejections(
      { conditions: [cond('Accepted', 'True', 'T', 4)] },
      [
        {
          gateway: 'ns/web',
          resource: 'backend/GwBackend/ns/b',
          message: 'proxy p rejected backend/GwBackend/ns/b: bad',
        },
      ],
      'NOW',
    );
    expect(s.conditions).toEqual([
      cond('Accepted', 'True', 'T', 4),
      {
        type: 'Programmed',
        status: 'False',
        reason: 'RejectedByProxy',
        message: 'proxy p rejected backend/GwBackend/ns/b: bad',
        observedGeneration: 4,
        lastTransitionTime: 'NOW',
      },
    ]);
  });

  it('marks only the route parent entry of the gateway whose proxy rejected the route', () => {
    const s = withRejections(
      { parents: [parent('web', ours, 'T'), parent('other', ours, 'T')] },
      [{ gateway: 'ns/web', resource: 'route/HTTPRoute/ns/r/0', message: 'rejected' }],
      'NOW',
    );
    const parents = s.parents as { conditions: { type: string }[] }[];
    expect(parents[0]!.conditions.map((c) => c.type)).toEqual(['Accepted', 'Programmed']);
    expect(parents[1]!.conditions.map((c) => c.type)).toEqual(['Accepted']);
  });

  it('marks the listener entry whose listener a proxy refused, and leaves the other listeners alone', () => {
    const s = withRejections(
      {
        conditions: [cond('Programmed', 'True', 'T')],
        listeners: [
          { name: 'http', conditions: [cond('Programmed', 'True', 'T')] },
          { name: 'https', conditions: [cond('Programmed', 'True', 'T')] },
        ],
      },
      [{ gateway: 'ns/web', resource: 'listener/ns/web/http', message: 'proxy p rejected listener/ns/web/http: x' }],
      'NOW',
    );
    const listeners = s.listeners as { name: string; conditions: { status: string; reason: string }[] }[];
    expect(listeners[0]!.conditions[0]).toMatchObject({ status: 'False', reason: 'RejectedByProxy' });
    expect(listeners[1]!.conditions[0]).toMatchObject({ status: 'True' });
  });

  it('says on a programmed Gateway which other objects its proxies do not serve', () => {
    const s = withRejections({ conditions: [cond('Programmed', 'True', 'T')] }, [], 'NOW', ['HTTPRoute/ns/r']);
    expect(s.conditions).toEqual([
      {
        ...cond('Programmed', 'True', 'T'),
        message: 'm; its proxies do not serve all of it, see the status of: HTTPRoute/ns/r',
      },
    ]);
  });
});

describe('objectOfResource', () => {
  it('maps route and backend resources to their objects and the rest to the Gateway', () => {
    expect(objectOfResource('route/HTTPRoute/ns/r/0', 'ns/web')).toBe('HTTPRoute/ns/r');
    expect(objectOfResource('backend/GwBackend/ns/b', 'ns/web')).toBe('GwBackend/ns/b');
    expect(objectOfResource('listener/ns/web/http', 'ns/web')).toBe('Gateway/ns/web');
    expect(objectOfResource('listener/ns/web/ListenerSet/ns/extra/http', 'ns/web')).toBe('ListenerSet/ns/extra');
  });
});
