// Which cloud backend.auth forms a GwPolicy's status must report as not served (the edge is left out).
import { describe, expect, it } from 'vitest';
import { unservableCloudAuth } from '../../src/translate/backends/cloud-credentials.js';

describe('unservable cloud backend.auth', () => {
  it('names assumeRole, Azure identities other than a client secret and Google forms other than a service account key', () => {
    expect(unservableCloudAuth({ aws: { assumeRole: { roleArn: 'arn:aws:iam::1:role/r' } } })).toEqual({
      'aws.assumeRole': expect.stringContaining('not supported'),
    });
    expect(Object.keys(unservableCloudAuth({ azure: { managedIdentity: {} } }))).toEqual(['azure.managedIdentity']);
    expect(Object.keys(unservableCloudAuth({ azure: { workloadIdentity: {} } }))).toEqual(['azure.workloadIdentity']);
    expect(Object.keys(unservableCloudAuth({ azure: {} }))).toEqual(['azure']);
    expect(Object.keys(unservableCloudAuth({ gcp: { type: 'IdToken', secretRef: { name: 's' } } }))).toEqual([
      'gcp.type',
    ]);
    expect(Object.keys(unservableCloudAuth({ gcp: {} }))).toEqual(['gcp']);
  });

  it('is empty for the forms the proxy serves', () => {
    for (const auth of [
      { aws: {} },
      { aws: { secretRef: { name: 's' } } },
      { azure: { secretRef: { name: 's' } } },
      { gcp: { secretRef: { name: 's' } } },
      { key: 'k' },
    ]) {
      expect(unservableCloudAuth(auth)).toEqual({});
    }
  });
});
