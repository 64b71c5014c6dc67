import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chartDir, helm, helmTemplate, testdataDir, valuesCases } from './helm-run.js';

const cases = valuesCases();

describe('gw chart lint', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'gw-chart-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('passes helm lint --strict with its defaults', () => {
    const result = helm(['lint', '--strict', chartDir]);
    expect(result.stderr + result.stdout).toContain('0 chart(s) failed');
    expect(result.status).toBe(0);
  });

  it.each(cases)('passes helm lint --strict with the %s values', (name) => {
    const result = helm(['lint', '--strict', chartDir, '--values', join(testdataDir, `${name}.values.yaml`)]);
    expect(result.status, result.stdout + result.stderr).toBe(0);
  });

  // The CRD generator fills charts/gw/crds/ on another branch; lint and template must work either way.
  it('lints and renders the same templates when a crds/ folder is present', () => {
    const copy = join(scratch, 'gw');
    cpSync(chartDir, copy, { recursive: true });
    if (!existsSync(join(copy, 'crds'))) {
      mkdirSync(join(copy, 'crds'));
      writeFileSync(join(copy, 'crds', 'gw.dev_gwmodels.yaml'), readFileSync(join(testdataDir, 'sample-crd.yaml')));
    }
    expect(helm(['lint', '--strict', copy]).status).toBe(0);
    const withCrds = helmTemplate([], copy);
    expect(withCrds.status, withCrds.stderr).toBe(0);
    // helm template leaves crds/ out unless asked; the rendered templates must not depend on it.
    expect(withCrds.stdout).toBe(helmTemplate([]).stdout);
    const included = helm(['template', 'gw', copy, '--include-crds']);
    expect(included.stdout).toContain('kind: CustomResourceDefinition');
  });
});

describe('gw chart install notes', () => {
  it('name the class, controller name, images and the namespaces writes are limited to', () => {
    // A client-only dry run renders NOTES.txt without a cluster; KUBECONFIG=/dev/null keeps it offline.
    const result = helm([
      'install',
      'gw',
      chartDir,
      '--namespace',
      'gw-system',
      '--dry-run=client',
      '--kubeconfig',
      '/dev/null',
      '--set',
      'rbac.gatewayNamespaces={agents,tools}',
      '--set',
      'gatewayClassName=gw-internal',
    ]);
    expect(result.status, result.stderr).toBe(0);
    const notes = result.stdout.slice(result.stdout.indexOf('NOTES:'));
    expect(notes).toContain('GatewayClass: gw-internal (controllerName gw.dev/gateway-controller)');
    expect(notes).toContain('Proxy image for new gateways: ghcr.io/gw-dev/proxy:0.1.0');
    expect(notes).toContain('Proxy workloads may only be created in: agents, tools');
    expect(notes).toContain('gatewayClassName: gw-internal');
  });
});

describe('gw chart rendering (golden)', () => {
  it.each(cases)('renders %s as its golden manifest', (name) => {
    const result = helmTemplate([join(testdataDir, `${name}.values.yaml`)]);
    expect(result.status, result.stderr).toBe(0);
    const goldenPath = join(testdataDir, `${name}.out.yaml`);
    if (process.env.REFRESH_GOLDEN === '1') writeFileSync(goldenPath, result.stdout);
    expect(result.stdout).toBe(readFileSync(goldenPath, 'utf8'));
  });
});
