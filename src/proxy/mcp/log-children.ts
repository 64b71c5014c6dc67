// Child loggers made once and reused: a session that lives for one request (a 2026 client's, a stateless
// route's) would otherwise make a pino child for its route and one per target on every request, about 2%
// of such a call's CPU. Keyed by the parent logger, so a session's own children go with it.
import type { Logger } from 'pino';

const made = new WeakMap<Logger, Map<string, Logger>>();

/** `log.child({ [field]: name })`, the same object every time for the same parent, field and name. */
export function childOf(log: Logger, field: 'route' | 'target', name: string): Logger {
  let children = made.get(log);
  if (!children) made.set(log, (children = new Map()));
  const key = `${field} ${name}`;
  let child = children.get(key);
  if (!child) children.set(key, (child = log.child({ [field]: name })));
  return child;
}
