// `gw explain` against a real API server: with no --manifests it reads the cluster of --kubeconfig and
// attributes each effective field to the object that set it.
import { randomBytes } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it, inject, vi } from 'vitest';
import { run } from '../../../src/cli/explain.js';
import { installGwCrds } from '../support/gw-crds.js';
import { e2eKubeConfig, useNamespace } from '../support/kube.js';
import { apply, gateway, gatewayClass, jwtPolicy, mcpBackend, mcpRoute } from './support/objects.js';

const suffix = randomBytes(3).toString('hex');
const controllerName = `gw.dev/e2e-explain-${suffix}`;
const className = `gw-explain-${suffix}`;

async function explain(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true));
  const log = vi.spyOn(console, 'log').mockImplementation((m) => void out.push(String(m)));
  const error = vi.spyOn(console, 'error').mockImplementation((m) => void err.push(String(m)));
  try {
    return { code: await run(args), out: out.join(''), err: err.join('\n') };
  } finally {
    write.mockRestore();
    log.mockRestore();
    error.mockRestore();
  }
}

describe('gw explain against a cluster', () => {
  const ns = useNamespace('explain');
  const kc = e2eKubeConfig();
  afterEach(() => vi.restoreAllMocks());

  beforeAll(async () => {
    await installGwCrds(inject('kubeconfig'), kc);
    await apply(kc, gatewayClass(className, controllerName));
    await apply(kc, gateway(ns(), 'web', className));
    await apply(kc, mcpBackend(ns(), 'mcp', 3001));
    await apply(kc, mcpRoute(ns(), 'mcp', 'web', 'mcp'));
    await apply(kc, jwtPolicy(ns(), 'jwt', 'mcp'));
  }, 120_000);

  it('prints the JWT field of the route with the GwPolicy that set it', async () => {
    const r = await explain([
      'route',
      `${ns()}/mcp`,
      '--kubeconfig',
      inject('kubeconfig'),
      '--controller-name',
      controllerName,
      '--gateway-class-name',
      className,
      '--output',
      'json',
    ]);
    expect(r.code, r.err).toBe(0);
    const text = r.out;
    expect(text).toContain('jwtAuthentication');
    expect(text).toContain(`GwPolicy ${ns()}/jwt`);
  });

  it('says the route is not in the cluster when it is not', async () => {
    const r = await explain([
      'route',
      `${ns()}/absent`,
      '--kubeconfig',
      inject('kubeconfig'),
      '--controller-name',
      controllerName,
    ]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`HTTPRoute ${ns()}/absent is not in the cluster`);
  });
});
