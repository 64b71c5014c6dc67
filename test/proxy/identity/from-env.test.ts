// identityFromEnv: the workload identity client the environment asks for, imported only then (issue 42:
// a proxy without one loads neither the Istio CA client with node-forge nor the Workload API client).
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { identityFromEnv } from '../../../src/proxy/identity/from-env.js';

const log = pino({ level: 'silent' });

describe('identityFromEnv', () => {
  it('starts no identity client when neither SPIFFE nor Istio is asked for', async () => {
    await expect(identityFromEnv({}, log)).resolves.toBeUndefined();
    await expect(identityFromEnv({ GW_ISTIO_ENABLED: 'false' }, log)).resolves.toBeUndefined();
  });

  it('loads the Istio CA client when asked, and still refuses missing settings by name', async () => {
    await expect(identityFromEnv({ GW_ISTIO_ENABLED: 'true' }, log)).rejects.toThrow(
      'GW_ISTIO_ENABLED is true but CA_ADDR is not set',
    );
  });

  it('loads the Workload API client for SPIFFE_ENDPOINT_SOCKET, which wins over Istio', async () => {
    const provider = await identityFromEnv(
      { SPIFFE_ENDPOINT_SOCKET: 'unix:///nonexistent/gw-test.sock', GW_ISTIO_ENABLED: 'true' },
      log,
    );
    try {
      expect(provider?.identity.kind).toBe('spiffe');
    } finally {
      provider?.close();
    }
  });
});
