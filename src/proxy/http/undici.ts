// undici's dispatchers and request API without the rest of the package. Its index loads fetch, WebSocket,
// the cache store, mocks and every interceptor (12 MiB of a proxy's RSS, 4.6 MiB of heap); these parts
// are 4 MiB. Every value the proxy takes from undici comes from here (lint enforces it); types still come
// from 'undici'. Should the full package load too (a test, a library), these are the same modules.
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const require = createRequire(import.meta.url);

// The package's index gives every dispatcher the API methods (request, stream, …) this way.
const dispatcherClass = require('undici/lib/dispatcher/dispatcher.js') as { prototype: object };
Object.assign(dispatcherClass.prototype, require('undici/lib/api/index.js') as object);

export const Agent = require('undici/lib/dispatcher/agent.js') as typeof Undici.Agent;
export type Agent = Undici.Agent;
export const buildConnector = require('undici/lib/core/connect.js') as typeof Undici.buildConnector;

/** The options of undici's `request`, with the dispatcher required (no global dispatcher here). */
export type RequestOptions = Omit<Undici.Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & {
  method?: Undici.Dispatcher.HttpMethod;
  dispatcher: Undici.Dispatcher;
};

/** undici's `request(url, opts)`: the URL split into origin and path, sent on `opts.dispatcher`. */
export function request(url: string | URL, opts: RequestOptions): Promise<Undici.Dispatcher.ResponseData> {
  const u = typeof url === 'string' ? new URL(url) : url;
  const { dispatcher, ...rest } = opts;
  return dispatcher.request({
    ...rest,
    origin: u.origin,
    path: u.search ? `${u.pathname}${u.search}` : u.pathname,
    method: opts.method ?? 'GET',
  });
}
