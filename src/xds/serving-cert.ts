// Serving certificates for the xDS port, issued from the stored CA and replaced well before they
// expire. Replacement swaps only the context used by new TLS handshakes: established connections
// keep their session, so connected proxies never see their stream drop.
import * as grpc from '@grpc/grpc-js';
import type { SecureContextOptions } from 'node:tls';
import type { Logger } from 'pino';
import { issueServingCert, loadOrCreateCa, type CaStore, type ServingCert } from './ca.js';

/** grpc-js re-reads these options for each new handshake after updateSecureContextOptions(). */
class RotatingServerCredentials extends grpc.ServerCredentials {
  constructor(context: SecureContextOptions) {
    super({}, context);
  }
  replace(context: SecureContextOptions): void {
    this.updateSecureContextOptions(context);
  }
  override _equals(other: grpc.ServerCredentials): boolean {
    return other === this;
  }
}

export interface ServingCertOptions {
  store: CaStore;
  /** DNS names and IPs proxies dial; the certificate covers each. */
  names: string[];
  /** Lifetime of each serving certificate; a new one is issued once two thirds of it have passed. */
  validityMs: number;
  log: Logger;
}

export interface ServingCerts {
  readonly credentials: grpc.ServerCredentials;
  /** PEM of the CA proxies must trust (what the controller publishes in a ConfigMap). */
  readonly caBundle: string;
  current(): ServingCert;
  rotate(): Promise<ServingCert>;
  close(): void;
}

// setTimeout cannot wait longer than 2^31-1 ms; longer waits re-arm.
const MAX_TIMER_MS = 2 ** 31 - 1;

export async function createServingCerts(opts: ServingCertOptions): Promise<ServingCerts> {
  const ca = await loadOrCreateCa(opts.store);
  let cert = await issueServingCert(ca, { names: opts.names, validityMs: opts.validityMs });
  const credentials = new RotatingServerCredentials({ cert: cert.cert, key: cert.key });
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const rotate = async (): Promise<ServingCert> => {
    const next = await issueServingCert(ca, { names: opts.names, validityMs: opts.validityMs });
    if (closed) return next;
    cert = next;
    credentials.replace({ cert: cert.cert, key: cert.key });
    opts.log.info({ notAfter: cert.notAfter.toISOString() }, 'xds serving certificate rotated');
    schedule();
    return cert;
  };

  const tick = () => {
    rotate().catch((err: unknown) => {
      // The current certificate is still valid for a third of its life: retrying soon is enough.
      opts.log.error({ err }, 'xds serving certificate rotation failed; retrying in 1 minute');
      timer = setTimeout(tick, 60_000);
      timer.unref();
    });
  };

  const schedule = () => {
    if (timer) clearTimeout(timer);
    const lifetime = cert.notAfter.getTime() - cert.notBefore.getTime();
    const renewAt = cert.notBefore.getTime() + (lifetime * 2) / 3;
    const wait = Math.max(0, renewAt - Date.now());
    timer = setTimeout(
      () => {
        if (Date.now() < renewAt) schedule();
        else tick();
      },
      Math.min(wait, MAX_TIMER_MS),
    );
    timer.unref();
  };
  schedule();

  return {
    credentials,
    caBundle: ca.caCert,
    current: () => cert,
    rotate,
    close: () => {
      closed = true;
      if (timer) clearTimeout(timer);
    },
  };
}
