// Which Pod of an InferencePool serves one request (GwModel custom.backendRef to a pool): the pool's endpoint
// picker (EPP) is asked over ext_proc as the Gateway API Inference Extension's protocol says (request headers
// and body in, `x-gateway-destination-endpoint` out in dynamic metadata `envoy.lb` or a header); without a
// picker, or with a FailOpen one that cannot answer, the pool's endpoints take turns.
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
} from '../ext/ext-proc-client.js';
import { fromStruct, headerMapOf, headersOfMap, toStruct } from '../ext/ext-proc-wire.js';

export const DESTINATION_KEY = 'x-gateway-destination-endpoint';
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

/** The endpoint to call, and the body the picker replaced the request's with (if it did). */
export type Picked =
  { ok: true; host: string; port: number; body?: Buffer } | { ok: false; code: ErrorCode; message: string };

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
    return { ok: true, ...hostPort(pool.endpoints[turn % pool.endpoints.length] ?? '') };
  }

  /** One ext_proc stream: headers (with the pool's endpoints as the subset hint), then the whole body. */
  private async ask(pool: InferencePoolTarget, req: PickRequest): Promise<Picked> {
    const stream = this.clients.open(pool.pickerUrl, this.timeoutMs);
    try {
      const pseudo = { ':method': req.method, ':path': req.path, ':authority': req.authority, ':scheme': 'http' };
      stream.send({
        requestHeaders: { headers: headerMapOf(req.headers, pseudo), endOfStream: req.body.length === 0 },
        metadataContext: { filterMetadata: { [SUBSET_NAMESPACE]: toStruct({ [SUBSET_KEY]: pool.endpoints }) } },
      });
      if (req.body.length > 0) stream.send({ requestBody: { body: req.body, endOfStream: true } });
      const answers = await this.answers(stream.next.bind(stream), req.body.length > 0);
      if ('immediate' in answers) return answers.immediate;
      return chosen(pool, answers.named, answers.body);
    } finally {
      stream.close();
    }
  }

  /** The picker's answers to the request phase: the endpoints it named and the body it sent back, if any. */
  private async answers(
    next: () => Promise<ProcessingResponse>,
    withBody: boolean,
  ): Promise<{ named: string[]; body?: Buffer } | { immediate: Picked }> {
    const named: string[] = [];
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
          named: named.map((s) => s.trim()).filter((s) => s !== ''),
          ...(replaced ? { body: Buffer.concat(chunks) } : {}),
        };
    }
  }
}

/** The first endpoint the picker named that is one of the pool's: a picker never sends traffic outside the pool. */
function chosen(pool: InferencePoolTarget, named: string[], body: Buffer | undefined): Picked {
  const known = new Set(pool.endpoints);
  const first = named.find((e) => known.has(e));
  if (!first)
    return {
      ok: false,
      code: 'no_healthy_provider',
      message: named.length
        ? `${pool.name}: the endpoint picker chose ${named[0]}, which is not a ready endpoint of the pool`
        : `${pool.name}: the endpoint picker named no endpoint (${DESTINATION_KEY})`,
    };
  return { ok: true, ...hostPort(first), ...(body ? { body } : {}) };
}

function hostPort(endpoint: string): { host: string; port: number } {
  const i = endpoint.lastIndexOf(':');
  return { host: endpoint.slice(0, i).replace(/^\[|\]$/g, ''), port: Number(endpoint.slice(i + 1)) };
}
