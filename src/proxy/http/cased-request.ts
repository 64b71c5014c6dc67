// `http1HeaderCase: Preserve` on the undici (HTTP/1.1) path: the request goes out with its names as cased,
// and the answer is asked for with its raw header list (undici's `responseHeaders: 'raw'`), so the backend's
// case is known when the proxy writes the answer on to an HTTP/1.1 client (`clientHeaders`).
import type { ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import type { UpstreamRequest, UpstreamResponse } from './h2-upstream.js';
import { withoutHopByHop } from './forward-headers.js';
import { caseOf, lowerCased, recased } from './header-case.js';

/** The backend's header-name case of the answers asked for with it. */
const answerCase = new WeakMap<UpstreamResponse, Map<string, string>>();

export async function casedRequest(dispatcher: Dispatcher, call: UpstreamRequest): Promise<UpstreamResponse> {
  const up = await dispatcher.request({
    ...call,
    method: call.method as Dispatcher.HttpMethod,
    responseHeaders: 'raw',
  });
  // With 'raw', undici's `headers` is the [name, value, …] list as received.
  const raw = up.headers as unknown as string[];
  const answer = Object.assign(up, { headers: lowerCased(raw) }) as UpstreamResponse;
  answerCase.set(answer, caseOf(raw));
  return answer;
}

/** The answer's headers as the client gets them: hop-by-hop ones dropped, the backend's case on HTTP/1.1. */
export function clientHeaders(res: ServerResponse, up: UpstreamResponse): Record<string, string | string[]> {
  const headers = withoutHopByHop(up.headers);
  const names = answerCase.get(up);
  // HTTP/2 requires lower-case names: only an HTTP/1.1 client gets the backend's case back.
  return names && res.req.httpVersionMajor === 1 ? recased(headers, names) : headers;
}
