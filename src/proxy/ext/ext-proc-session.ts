// GwPolicy `traffic.extProc` compiled, and the processor stream of one request: each phase's message asked,
// its answer checked (the phase it belongs to, or an immediate response), dynamic metadata kept. Failure
// rule (seed): FailOpen continues unprocessed only until a body starts streaming to the processor; after
// that, and always with FailClosed, a failed call ends the exchange. Behaviour: docs/proxy.md "External
// processing".
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { ExtProcessing } from '../../ir/types.js';
import { compileCel, expressionVariables, type CelBindings, type CompiledCel } from '../policy/cel/env.js';
import { sendError } from '../http/http-error.js';
import {
  ExtProcFailure,
  type CommonResponse,
  type ExtProcClients,
  type HeaderMutation,
  type Phase,
  type ProcessingRequest,
  type ProcessingResponse,
  type ProcessorStream,
} from './ext-proc-client.js';
import { fromStruct, sendImmediate, toStruct } from './ext-proc-wire.js';
import { grpcUrlOf } from './grpc-clients.js';
import { evaluateMetadata } from '../mcp/guardrails/metadata.js';

/** Envoy's default message_timeout: each message's answer must arrive within it unless processingOptions.timeout says otherwise. */
export const defaultExtProcTimeoutMs = 200;

export type BodyMode = 'none' | 'buffered' | 'partial' | 'streamed';
const bodyModes: Record<ExtProcessing['requestBody'], BodyMode> = {
  EXT_PROC_BODY_NONE: 'none',
  EXT_PROC_BODY_BUFFERED: 'buffered',
  EXT_PROC_BODY_BUFFERED_PARTIAL: 'partial',
  EXT_PROC_BODY_FULL_DUPLEX_STREAMED: 'streamed',
};

export interface ExtProcPlan {
  url: string;
  failOpen: boolean;
  timeoutMs: number;
  requestHeaders: boolean;
  responseHeaders: boolean;
  requestBody: BodyMode;
  responseBody: BodyMode;
  requestTrailers: boolean;
  responseTrailers: boolean;
  metadataContext: readonly [string, CompiledCel][];
  requestAttributes: readonly [string, CompiledCel][];
  responseAttributes: readonly [string, CompiledCel][];
}

/** The route's plan, or why it cannot be enforced (the runtime then refuses the route with 503). */
export function compileExtProc(p: ExtProcessing): ExtProcPlan | string {
  const url = grpcUrlOf(p.url);
  if (typeof url === 'string') return url;
  const compiled = (
    field: string,
    m: Record<string, string>,
    vars: (typeof expressionVariables)['extProcRequest' | 'extProcResponse'],
  ) => {
    const out: [string, CompiledCel][] = [];
    for (const [name, source] of Object.entries(m)) {
      try {
        out.push([name, compileCel(source, vars)]);
      } catch (err) {
        return `${field}.${name} ${(err as Error).message}`;
      }
    }
    return out;
  };
  const metadataContext = compiled('metadataContext', p.metadataContext, expressionVariables.extProcRequest);
  if (typeof metadataContext === 'string') return metadataContext;
  const requestAttributes = compiled('requestAttributes', p.requestAttributes, expressionVariables.extProcRequest);
  if (typeof requestAttributes === 'string') return requestAttributes;
  const responseAttributes = compiled('responseAttributes', p.responseAttributes, expressionVariables.extProcResponse);
  if (typeof responseAttributes === 'string') return responseAttributes;
  return {
    url: `${url.protocol}//${url.host}`,
    failOpen: p.failOpen,
    timeoutMs: p.timeoutMs || defaultExtProcTimeoutMs,
    requestHeaders: !p.skipRequestHeaders,
    responseHeaders: !p.skipResponseHeaders,
    requestBody: bodyModes[p.requestBody],
    responseBody: bodyModes[p.responseBody],
    requestTrailers: p.sendRequestTrailers,
    responseTrailers: p.sendResponseTrailers,
    metadataContext,
    requestAttributes,
    responseAttributes,
  };
}

/** Whether the plan sends anything once the backend answers (only forwarded HTTP routes pass answers through it). */
export const processesAnswers = (p: ExtProcPlan): boolean =>
  p.responseHeaders || p.responseBody !== 'none' || p.responseTrailers;

/** What a phase's answer lets the exchange do next. */
export type Answer =
  | { kind: 'continue'; common: CommonResponse | undefined; trailers?: HeaderMutation }
  /** The client has its answer (an immediate response, or the failure's error): stop. */
  | { kind: 'answered' }
  /** FailOpen with nothing streamed yet: continue unprocessed, and send the processor nothing more. */
  | { kind: 'unprocessed' };

// A value the request cannot give (a claim of an absent token) is left out, as for guardrail metadata.
const evaluated = (list: readonly [string, CompiledCel][], b: CelBindings): Record<string, unknown> =>
  evaluateMetadata(list, b);

/** The processor stream of one request, opened with its first message. */
export class ExtProcSession {
  /** The processor's dynamic_metadata, merged over the exchange (CEL `extProc` in access logs). */
  readonly metadata: Record<string, unknown> = {};
  /** A body started streaming to the processor: from now on a failed call ends the exchange, whatever failureMode says. */
  streaming = false;
  /** FailOpen took effect: nothing more is sent. */
  off = false;
  private stream: ProcessorStream | undefined;
  private sentRequestAttributes = false;

  constructor(
    readonly plan: ExtProcPlan,
    private readonly clients: ExtProcClients,
    private readonly bindings: CelBindings,
    private readonly log: Logger,
    private readonly trace: Record<string, string> | undefined,
  ) {}

  /** The stream, opened at its first use. */
  private opened(): ProcessorStream {
    this.stream ??= this.clients.open(this.plan.url, this.plan.timeoutMs, this.trace);
    return this.stream;
  }

  /** metadata_context and the request attributes travel with the first message of the request. */
  private firstExtras(): Pick<ProcessingRequest, 'metadataContext' | 'attributes'> {
    if (this.sentRequestAttributes) return {};
    this.sentRequestAttributes = true;
    const out: Pick<ProcessingRequest, 'metadataContext' | 'attributes'> = {};
    if (this.plan.metadataContext.length) {
      const filterMetadata: Record<string, ReturnType<typeof toStruct>> = {};
      for (const [ns, v] of Object.entries(evaluated(this.plan.metadataContext, this.bindings)))
        filterMetadata[ns] = toStruct(isPlainObject(v) ? v : { value: v });
      out.metadataContext = { filterMetadata };
    }
    if (this.plan.requestAttributes.length)
      out.attributes = {
        'envoy.filters.http.ext_proc': toStruct(evaluated(this.plan.requestAttributes, this.bindings)),
      };
    return out;
  }

  /** Response attributes travel with the response headers (or the first response message sent). */
  responseExtras(response: Record<string, unknown>): Pick<ProcessingRequest, 'attributes'> {
    if (!this.plan.responseAttributes.length) return {};
    const b = { ...this.bindings, response };
    return { attributes: { 'envoy.filters.http.ext_proc': toStruct(evaluated(this.plan.responseAttributes, b)) } };
  }

  /** Sends without waiting (a streamed body chunk); the first message carries the request's extras. */
  send(phase: Phase, message: ProcessingRequest[Phase], extras: Partial<ProcessingRequest> = {}): void {
    this.opened().send({ ...this.firstExtras(), ...extras, [phase]: message });
  }

  /** Sends one message and waits for its answer. */
  async ask(
    res: ServerResponse,
    phase: Phase,
    message: ProcessingRequest[Phase],
    extras: Partial<ProcessingRequest> = {},
  ): Promise<Answer> {
    this.send(phase, message, extras);
    return this.answer(res, phase);
  }

  /** The next answer, which must belong to `phase` (or be an immediate response). */
  async answer(res: ServerResponse, phase: Phase): Promise<Answer> {
    let r: ProcessingResponse;
    try {
      r = await this.opened().next();
    } catch (err) {
      return this.failed(res, err instanceof ExtProcFailure ? err.message : 'the call failed');
    }
    if (r.dynamicMetadata) Object.assign(this.metadata, fromStruct(r.dynamicMetadata));
    if (r.response === 'immediateResponse' && r.immediateResponse) {
      if (!sendImmediate(res, r.immediateResponse))
        return this.failed(res, 'an immediate response without a status between 200 and 599');
      this.log.info({ status: res.statusCode, phase }, 'external processor answered the request itself');
      this.close();
      return { kind: 'answered' };
    }
    if (r.response !== phase) return this.failed(res, `answered ${r.response ?? 'nothing'} to ${phase}`);
    if (phase === 'requestTrailers' || phase === 'responseTrailers') {
      const m = r[phase]?.headerMutation;
      return { kind: 'continue', common: undefined, ...(m ? { trailers: m } : {}) };
    }
    const common = r[phase]?.response ?? undefined;
    if (common?.clearRouteCache)
      this.log.debug({ phase }, 'external processor asked to clear the route cache; routes are chosen once, before it');
    return { kind: 'continue', common };
  }

  /** A failed call: FailOpen before any body streamed continues unprocessed; otherwise the exchange ends. */
  failed(res: ServerResponse, why: string): Answer {
    this.close();
    if (this.plan.failOpen && !this.streaming) {
      this.log.warn({ why }, 'external processor call failed; continuing unprocessed (failureMode FailOpen)');
      this.off = true;
      return { kind: 'unprocessed' };
    }
    const rule = this.streaming ? 'a body was streaming to it' : 'failureMode FailClosed';
    this.log.warn({ why }, `external processor call failed; ending the exchange (${rule})`);
    if (!res.headersSent) sendError(res, 'processing_failed', 'the external processor could not process this exchange');
    else res.destroy();
    return { kind: 'answered' };
  }

  close(): void {
    this.stream?.close();
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
