// GwParameters details operators met (issue 16 item 7): `image.registry` alone replaces the registry of
// the controller's default image, and a gateway's `logging.level` keeps the class's `logging.format`.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { resolveParameters } from '../../src/deployer/parameters.js';
import { imageRef } from '../../src/deployer/pod-template.js';
import { buildProxyConfig } from '../../src/deployer/proxy-config.js';

const gateway = { metadata: { name: 'edge', namespace: 'apps' } };
const ctx = { gateway, xdsAddress: 'gw.gw-system.svc:9978', xdsTls: true } as Parameters<typeof buildProxyConfig>[1];

describe('GwParameters merging', () => {
  it('image.registry alone replaces the registry of a default given as one reference', () => {
    const defaults = { repository: 'ghcr.io/gw-dev/proxy', tag: '2.0' };
    expect(imageRef({ image: { registry: 'class.example' } }, defaults)).toBe('class.example/gw-dev/proxy:2.0');
    expect(imageRef({}, defaults)).toBe('ghcr.io/gw-dev/proxy:2.0');
    expect(imageRef({ image: { registry: 'localhost:5000' } }, { repository: 'proxy', tag: '1' })).toBe(
      'localhost:5000/proxy:1',
    );
    expect(imageRef({ image: { registry: 'r.example' } }, { repository: 'library/proxy' })).toBe(
      'r.example/library/proxy',
    );
  });

  it("a gateway's logging.level keeps the class's logging.format, and unset fields get info / text", () => {
    const { typed } = resolveParameters(
      { metadata: { name: 'class' }, spec: { logging: { format: 'json' } } },
      { metadata: { name: 'gw', namespace: 'apps' }, spec: { logging: { level: 'debug' } } },
    );
    expect(buildProxyConfig(typed, ctx).logging).toEqual({ level: 'debug', format: 'json' });
    expect(buildProxyConfig({}, ctx).logging).toEqual({ level: 'info', format: 'text' });
  });

  it('the CRD sets no default for logging fields, so the API server cannot fill one in over the class value', () => {
    const crd = parse(readFileSync(new URL('../../crds/gw.dev_gwparameters.yaml', import.meta.url), 'utf8')) as {
      spec: {
        versions: {
          schema: {
            openAPIV3Schema: {
              properties: { spec: { properties: { logging: { properties: Record<string, { default?: unknown }> } } } };
            };
          };
        }[];
      };
    };
    const logging = crd.spec.versions[0]!.schema.openAPIV3Schema.properties.spec.properties.logging.properties;
    expect(logging.level?.default).toBeUndefined();
    expect(logging.format?.default).toBeUndefined();
  });
});
