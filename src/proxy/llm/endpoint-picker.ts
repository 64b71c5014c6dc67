// Which Pod of an InferencePool serves one request (GwModel custom.backendRef to a pool): the pool's endpoint
// picker (EPP) is asked over ext_proc as the Gateway API Inference Extension's protocol says (request headers
// and body in, `x-gateway-destination-endpoint` out in dynamic metadata `envoy.lb` or a header, the endpoints
// after the first and `x-gateway-destination-endpoint-fallback` as fallbacks); the same stream then gets the
// response headers with the endpoint that served (`x-gateway-destination-endpoint-served`). Without a picker,
// or with a FailOpen one that cannot answer, the pool's endpoints take turns.
// Behaviour: docs/llm-providers.md "GwModel backendRef".
import type { IncomingHttpHeaders } from 'node:http';
import type { InferencePoolTarget } from '../../ir/types.js';
import type { ErrorCode } from '../proxy-error.js';
import {
  ExtProcFailure,
  statusNumber,
  type CommonResponse,
  type ExtProcClients,
  type ProcessingResponse,
  type ProcessorStream,
} from '../ext/ext-proc-client.js';
import { fromStruct, headerMapOf, headersOfMap, toStruct } from '../ext/ext-proc-wire.js';

export const DESTINATION_KEY = 'x-gateway-destination-endpoint';
const FALLBACK_KEY = 'x-gateway-destination-endpoint-fallback';
const SERVED_KEY = 'x-gateway-destination-endpoint-served';
const DESTINATION_NAMESPACE = 'envoy.lb';
const SUBSET_NAMESPACE = 'envoy.lb.subset_hint';
const SUBSET_KEY = 'x-gateway-destination-endpoint-subset';

export interface PickRequest {
  method: string;
  path: string;
  authority: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface PickedEndpoint {
  host: string;
  port: number;
}

/**
 * The endpoint to call, the pool's endpoints the picker named after it (tried in order when it cannot be
 * reached), the body the picker replaced the request's with (if it did), and the picker's stream, open for the
 * response phase: `served` tells it who answered (and closes it), `close` ends it without.
 */
export type Picked =
  | (PickedEndpoint & { ok: true; fallbacks: PickedEndpoint[]; body?: Buffer; report?: PickerReport })
  | { ok: false; code: ErrorCode; message: string };

/** The response phase of one picker stream. */
export interface PickerReport {
  served(endpoint: PickedEndpoint, status: number, headers: IncomingHttpHeaders): Promise<void>;
  close(): void;
}

export class EndpointPicker {
  /** The next turn per pool, for round-robin. */
  private readonly turns = new Map<string, number>();

  constructor(
    private readonly clients: ExtProcClients,
    private readonly timeoutMs: number,
  ) {}

  async pick(pool: InferencePoolTarget, req: PickRequest): Promise<Picked> {
    if (pool.endpoints.length === 0)
      return { ok: false, code: 'no_healthy_provider', message: `${pool.name} has no ready endpoint` };
    if (!pool.hasPicker) return this.nextTurn(pool);
    try {
      if (!pool.pickerUrl) throw new ExtProcFailure('its Service has no ready endpoint');
      return await this.ask(pool, req);
    } catch (err) {
      if (!(err instanceof ExtProcFailure)) throw err;
      if (pool.pickerFailOpen) return this.nextTurn(pool);
      return {
        ok: false,
        code: 'no_healthy_provider',
        message: `${pool.name}: the endpoint picker did not answer (${err.message}); its failureMode is FailClose`,
      };
    }
  }

  private nextTurn(pool: InferencePoolTarget): Picked {
    const turn = this.turns.get(pool.name) ?? 0;
    this.turns.set(pool.name, turn + 1);
    return { ok: true, fallbacks: [], ...hostPort(pool.endpoints[turn % pool.endpoints.length] ?? '') };
  }

  /** One ext_proc stream: headers (with the pool's endpoints as the subset hint), then the whole body. */
  private async ask(pool: InferencePoolTarget, req: PickRequest): Promise<Picked> {
    const stream = this.clients.open(pool.pickerUrl, this.timeoutMs);
    let kept = false;
    try {
      const pseudo = { ':method': req.method, ':path': req.path, ':authority': req.authority, ':scheme': 'http' };
      stream.send({
        requestHeaders: { headers: headerMapOf(req.headers, pseudo), endOfStream: req.body.length === 0 },
        metadataContext: { filterMetadata: { [SUBSET_NAMESPACE]: toStruct({ [SUBSET_KEY]: pool.endpoints }) } },
      });
      if (req.body.length > 0) stream.send({ requestBody: { body: req.body, endOfStream: true } });
      const answers = await this.answers(stream.next.bind(stream), req.body.length > 0);
      if ('immediate' in answers) return answers.immediate;
      const picked = chosen(pool, answers.named, answers.body);
      if (!picked.ok) return picked;
      kept = true;
      return { ...picked, report: responsePhase(stream) };
    } finally {
      if (!kept) stream.close();
    }
  }

  /** The picker's answers to the request phase: the endpoints it named and the body it sent back, if any. */
  private async answers(
    next: () => Promise<ProcessingResponse>,
    withBody: boolean,
  ): Promise<{ named: string[]; body?: Buffer } | { immediate: Picked }> {
    const named: string[] = [];
    const fallbacks: string[] = [];
    const chunks: Buffer[] = [];
    let replaced = false;
    for (;;) {
      const r = await next();
      if (r.immediateResponse) {
        const status = statusNumber(r.immediateResponse.status?.code ?? undefined);
        const code: ErrorCode = status === 429 ? 'rate_limited' : 'no_healthy_provider';
        const why = r.immediateResponse.details || `status ${status}`;
        return { immediate: { ok: false, code, message: `the endpoint picker refused the request: ${why}` } };
      }
      const meta = fromStruct(r.dynamicMetadata)[DESTINATION_NAMESPACE];
      const fromMeta = (meta as Record<string, unknown> | undefined)?.[DESTINATION_KEY];
      if (typeof fromMeta === 'string') named.push(...fromMeta.split(','));
      const fallback = (meta as Record<string, unknown> | undefined)?.[FALLBACK_KEY];
      if (typeof fallback === 'string') fallbacks.push(...fallback.split(','));
      const common: CommonResponse | null | undefined = r.requestHeaders?.response ?? r.requestBody?.response;
      const header = headersOfMap({
        headers: (common?.headerMutation?.setHeaders ?? []).flatMap((h) => (h.header ? [h.header] : [])),
      })[DESTINATION_KEY];
      if (header !== undefined) named.push(...String(header).split(','));
      const m = common?.bodyMutation;
      if (m?.streamedResponse) {
        replaced = true;
        chunks.push(m.streamedResponse.body);
      } else if (m?.body) {
        replaced = true;
        chunks.push(m.body);
      }
      // Done once the body phase is answered (its last streamed chunk), or the headers when there is no body.
      const done = withBody
        ? r.requestBody !== undefined && (!m?.streamedResponse || m.streamedResponse.endOfStream)
        : r.requestHeaders !== undefined;
      if (done)
        return {
          named: [...named, ...fallbacks].map((s) => s.trim()).filter((s) => s !== ''),
          ...(replaced ? { body: Buffer.concat(chunks) } : {}),
        };
    }
  }
}

/**
 * The first endpoint the picker named that is one of the pool's, and the pool's others it named after it
 * (fallbacks, in order): a picker never sends traffic outside the pool.
 */
function chosen(pool: InferencePoolTarget, named: string[], body: Buffer | undefined): Picked {
  const known = new Set(pool.endpoints);
  const inPool = [...new Set(named.filter((e) => known.has(e)))];
  const first = inPool[0];
  if (!first)
    return {
      ok: false,
      code: 'no_healthy_provider',
      message: named.length
        ? `${pool.name}: the endpoint picker chose ${named[0]}, which is not a ready endpoint of the pool`
        : `${pool.name}: the endpoint picker named no endpoint (${DESTINATION_KEY})`,
    };
  return { ok: true, ...hostPort(first), fallbacks: inPool.slice(1).map(hostPort), ...(body ? { body } : {}) };
}

/**
 * The response phase on the picker's stream: the answer's status and headers, with the endpoint that served in
 * metadata `envoy.lb` (`x-gateway-destination-endpoint-served`); then the stream is half-closed and ended once
 * the picker answers or ends it (the response body is not sent).
 */
function responsePhase(stream: ProcessorStream): PickerReport {
  return {
    async served(endpoint, status, headers) {
      const served = endpoint.host.includes(':')
        ? `[${endpoint.host}]:${endpoint.port}`
        : `${endpoint.host}:${endpoint.port}`;
      stream.send({
        responseHeaders: { headers: headerMapOf(headers, { ':status': String(status) }), endOfStream: false },
        metadataContext: { filterMetadata: { [DESTINATION_NAMESPACE]: toStruct({ [SERVED_KEY]: served }) } },
      });
      await stream.finish();
    },
    close: () => stream.close(),
  };
}

function hostPort(endpoint: string): { host: string; port: number } {
  const i = endpoint.lastIndexOf(':');
  return { host: endpoint.slice(0, i).replace(/^\[|\]$/g, ''), port: Number(endpoint.slice(i + 1)) };
}
