// What the cloud guard steps (Bedrock Guardrails, Google Model Armor) share: the texts of a chat body they
// send and write back, one JSON call to the vendor with a deadline and a capped answer, and the fail-closed
// verdicts when the vendor cannot be asked. Credentials travel in headers or the path's query and are
// never logged or named in an error body.
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { AiCredential__Output as AiCredential } from '../../ir/gen/gw/ir/v1/AiCredential.js';
import type { ContentScope__Output as ContentScope } from '../../ir/gen/gw/ir/v1/ContentScope.js';
import type { CredentialLocation__Output as CredentialLocation } from '../../ir/gen/gw/ir/v1/CredentialLocation.js';
import { placed } from '../auth/backend-identity.js';
import { CloudAuthFailure, type CloudAuth, type SignableCall } from '../llm/cloud-auth.js';
import { rewriteTexts, type GuardPhase } from './content.js';
import type { GuardVerdict } from './types.js';
import { errorVerdict } from './verdicts.js';
import { readCapped } from './webhook-step.js';

type Json = Record<string, unknown>;

export const rec = (v: unknown): Json | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;

export interface CloudGuardOptions {
  dispatcher: Dispatcher;
  timeoutMs: number;
  auth: CloudAuth;
  /** `scheme://host[:port]` replacing the vendor's regional endpoint (an egress gateway, a test stand-in). */
  endpoint?: string;
}

/** One authenticated call of a cloud guard; `what` and `where` name it in errors and logs. */
export interface CloudGuardCall {
  base: URL;
  path: string;
  payload: string;
  credential: AiCredential;
  keyLocation?: CredentialLocation | null;
  /** SigV4 region and service, for an `aws` credential. */
  signing?: { region: string; service: string };
  what: string;
  where: Record<string, string>;
}

/** Authenticates and sends `c`: the 2xx answer's JSON object, or the verdict that fails closed. */
export async function callCloudGuard(
  opts: CloudGuardOptions,
  c: CloudGuardCall,
  log: Logger,
): Promise<{ json: Json | undefined } | GuardVerdict> {
  const call = {
    method: 'POST',
    authority: c.base.host,
    path: c.path,
    contentType: 'application/json',
    body: c.payload,
  };
  const authed = await vendorAuth(opts.auth, c.credential, c.keyLocation, call, c.signing, c.what);
  if (authed instanceof CloudAuthFailure) return authFailure(authed, c.where, log);
  const answer = await postJson({
    dispatcher: opts.dispatcher,
    timeoutMs: opts.timeoutMs,
    origin: c.base.origin,
    path: authed.path,
    headers: { 'content-type': 'application/json', accept: 'application/json', ...authed.headers },
    body: c.payload,
  });
  if ('error' in answer || answer.status < 200 || answer.status > 299) {
    // AWS names its error type in a header (`ValidationException:…`); it never carries the request's content.
    const type = 'error' in answer ? '' : (answer.headers['x-amzn-errortype'] ?? '').split(':')[0];
    return vendorFailure(c.what, answer, c.where, opts.timeoutMs, log, /^[A-Za-z]{1,64}$/.test(type ?? '') ? type : '');
  }
  return { json: rec(answer.json) };
}

/** Every scope: a cloud guard checks all the text a chat body carries. */
const ALL_SCOPES: ReadonlySet<ContentScope> = new Set([
  'SCOPE_SYSTEM_PROMPT',
  'SCOPE_MESSAGES',
  'SCOPE_TOOL_OUTPUT',
  'SCOPE_TOOL_INPUT',
]);

/** The non-blank texts of a request's messages or a response's choices, in document order. */
export function guardTexts(body: Json, phase: GuardPhase): string[] {
  const out: string[] = [];
  rewriteTexts(body, phase, ALL_SCOPES, (t) => {
    if (t.trim() !== '') out.push(t);
    return t;
  });
  return out;
}

/** `body` with the texts `guardTexts` returned replaced, in order, by `outs` (undefined when nothing changed). */
export function replaceTexts(body: Json, phase: GuardPhase, outs: readonly string[]): Json | undefined {
  let i = 0;
  return rewriteTexts(body, phase, ALL_SCOPES, (t) => (t.trim() === '' ? t : (outs[i++] ?? t)));
}

interface VendorCall {
  dispatcher: Dispatcher;
  timeoutMs: number;
  origin: string;
  /** Path and query as sent. */
  path: string;
  headers: Record<string, string>;
  body: string;
}

type VendorAnswer =
  | { status: number; headers: Record<string, string>; json: unknown }
  | { error: 'timeout' | 'unreachable' | 'too_large' | 'not_json' };

/** POSTs `call` and reads a JSON answer of at most 1 MiB (any status). */
async function postJson(call: VendorCall): Promise<VendorAnswer> {
  let res: Dispatcher.ResponseData;
  try {
    res = await call.dispatcher.request({
      origin: call.origin,
      path: call.path,
      method: 'POST',
      headers: call.headers,
      body: call.body,
      headersTimeout: call.timeoutMs,
      bodyTimeout: call.timeoutMs,
      signal: AbortSignal.timeout(call.timeoutMs),
    });
  } catch (err) {
    return { error: timedOut(err) ? 'timeout' : 'unreachable' };
  }
  let text: string;
  try {
    text = await readCapped(res.body);
  } catch (err) {
    const e = err as { code?: string };
    return { error: e.code === 'GW_ANSWER_TOO_LARGE' ? 'too_large' : timedOut(err) ? 'timeout' : 'unreachable' };
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers[k] = v;
  try {
    return { status: res.statusCode, headers, json: text.trim() === '' ? undefined : (JSON.parse(text) as unknown) };
  } catch {
    return res.statusCode >= 200 && res.statusCode <= 299
      ? { error: 'not_json' }
      : { status: res.statusCode, headers, json: undefined };
  }
}

function timedOut(err: unknown): boolean {
  const e = err as { name?: string; code?: string };
  return e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT';
}

/**
 * Fail closed: 504 when the vendor did not answer in time, 502 `guard_unavailable` when it could not be asked
 * or refused, 502 `guard_bad_response` when its answer is not what its API returns (`problem` as a string).
 * `detail` (e.g. AWS's error type) follows the status; it never carries content or credentials.
 */
export function vendorFailure(
  what: string,
  problem: VendorAnswer | string,
  where: Record<string, string>,
  timeoutMs: number,
  log: Logger,
  detail = '',
): GuardVerdict {
  const reason =
    typeof problem === 'string'
      ? problem
      : 'error' in problem
        ? {
            timeout: `did not answer within ${timeoutMs} ms`,
            unreachable: 'is unreachable',
            too_large: 'gave an answer larger than 1 MiB',
            not_json: 'answered 2xx with a body that is not JSON',
          }[problem.error]
        : `answered ${problem.status}${detail ? ` ${detail}` : ''}`;
  log.error({ ...where, reason }, 'prompt guard vendor call failed; failing closed');
  if (typeof problem !== 'string' && 'error' in problem && problem.error === 'timeout')
    return errorVerdict(504, 'guard_timeout', `${what} ${reason}`);
  const unavailable = typeof problem !== 'string' && (!('error' in problem) || problem.error === 'unreachable');
  return errorVerdict(502, unavailable ? 'guard_unavailable' : 'guard_bad_response', `${what} ${reason}`);
}

/** How a cloud guard authenticates its call: signing or token headers, or a key where `keyLocation` puts it. */
async function vendorAuth(
  auth: CloudAuth,
  credential: AiCredential,
  keyLocation: CredentialLocation | null | undefined,
  call: SignableCall,
  signing: { region: string; service: string } | undefined,
  who: string,
): Promise<{ headers: Record<string, string>; path: string } | CloudAuthFailure> {
  if (credential.kind === 'key') {
    const at = placed({ path: call.path, headers: {} }, credential.key ?? '', keyLocation);
    // Starting from no headers, `placed` writes single string values only.
    return { path: at.path, headers: at.headers as Record<string, string> };
  }
  const got = await auth.headers(credential, call, signing, who);
  if (got === undefined) return new CloudAuthFailure('credential_missing', `${who} has no usable credential`);
  return got instanceof CloudAuthFailure ? got : { headers: got, path: call.path };
}

/** A credential that could not be had fails closed: 500 when the proxy's setup lacks it, 502 when its issuer failed. */
function authFailure(f: CloudAuthFailure, where: Record<string, string>, log: Logger): GuardVerdict {
  log.error({ ...where, reason: f.message }, 'prompt guard vendor credential unavailable; failing closed');
  return errorVerdict(f.code === 'credential_missing' ? 500 : 502, f.code, f.message);
}
