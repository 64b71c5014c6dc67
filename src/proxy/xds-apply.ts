// Applying one xDS update to the runtime, resource by resource in effect: whatever the runtime refuses
// is left out (no version of it is served) and NACKed by name, and everything else of the same update
// is applied. When the runtime's error names its resource (a bind, a route), that one is left out; when
// it names none, the update is split in halves (dependencies first) until the refused resources are
// found. Held resources left dangling are dropped and reported too, so the controller knows what this
// proxy lacks (docs/xds.md, "What a proxy holds").
import type { Logger } from 'pino';
import { ProblemError } from '../problem.js';
import type { Resource } from '../ir/types.js';
import type { ApplyResult, XdsUpdate } from '../xds/client.js';
import type { ProxyRuntime } from './runtime.js';
import {
  decodeResource,
  explainDangling,
  planUpdate,
  toSnapshot,
  type Plan,
  type ResourceError,
} from './xds-resources.js';

/** What of the runtime the applier drives; tests wrap a runtime to inject a fault. */
export type ApplyTarget = Pick<ProxyRuntime, 'apply' | 'metrics'>;

/** Kinds in the order they may depend on each other: a listener names a bind, a route a listener and backends. */
const KIND_ORDER = ['bind', 'listener', 'backend', 'model', 'route'];

function kindRank(name: string): number {
  const i = KIND_ORDER.indexOf(name.slice(0, name.indexOf('/')));
  return i < 0 ? KIND_ORDER.length : i;
}

/** Applies xDS updates to a runtime; exported apart from the client so it can be driven directly. */
export function createXdsApplier(
  runtime: ApplyTarget,
  log: Logger,
  source: string,
  listenAddress?: string,
): (update: XdsUpdate) => Promise<ApplyResult> {
  let held = new Map<string, Resource>();
  let generation = 0;
  const tryApply = (next: ReadonlyMap<string, Resource>) =>
    runtime.apply(toSnapshot(next, `xds-${++generation}`, listenAddress), source);
  return async (update) => {
    const plan = planUpdate(held, update, source);
    let outcome: Outcome;
    try {
      await tryApply(plan.next);
      outcome = plan;
    } catch (err) {
      outcome = await isolate(held, update, plan, err, tryApply, source).catch((final: unknown) => {
        runtime.metrics.reloads.inc({ result: 'rejected' });
        throw final;
      });
    }
    const resourceOf = lookup(held, update);
    const dropped = explainDangling(droppedBy(held, update, outcome), resourceOf, outcome.next, source);
    const errors = explainDangling(outcome.errors, resourceOf, outcome.next, source);
    held = outcome.next;
    for (const d of dropped)
      log.warn({ resource: d.name }, `held resource dropped, the update left it inconsistent: ${d.message}`);
    const refused = errors.length + dropped.length;
    runtime.metrics.reloads.inc({ result: refused > 0 ? 'partial' : 'applied' });
    // One line per update: "applied" only when nothing was refused (the client warns with the errors).
    log.info(
      {
        upserts: update.upserts.length,
        removes: update.removes.length,
        rejected: errors.length,
        dropped: dropped.length,
        resources: held.size,
      },
      refused > 0 ? 'xds update applied in part' : 'xds update applied',
    );
    return { errors, dropped };
  };
}

/** A resource of the update (decoded again) or, when the update does not carry it, of the held set. */
function lookup(held: ReadonlyMap<string, Resource>, update: XdsUpdate): (name: string) => Resource | undefined {
  return (name) => {
    const upsert = update.upserts.find((u) => u.name === name);
    if (!upsert) return held.get(name);
    try {
      return decodeResource(upsert.type, upsert.body);
    } catch {
      return undefined;
    }
  };
}

type TryApply = (next: ReadonlyMap<string, Resource>) => Promise<void>;
type Outcome = Pick<Plan, 'next' | 'errors' | 'dropped'>;

/**
 * What the proxy served before and no longer serves, though the update neither changed nor removed it:
 * computed from the sets themselves, so the report is complete whatever path left a resource out.
 */
function droppedBy(before: ReadonlyMap<string, Resource>, update: XdsUpdate, outcome: Outcome): ResourceError[] {
  const touched = new Set([...update.removes, ...update.upserts.map((u) => u.name)]);
  const why = new Map(outcome.dropped.map((d) => [d.name, d.message]));
  return [...before.keys()]
    .filter((name) => !touched.has(name) && !outcome.next.has(name))
    .map((name) => ({ name, message: why.get(name) ?? 'dropped while applying the update' }));
}

/**
 * The runtime refused `plan`: find the upserts it refuses and apply the rest, without the refused ones'
 * previous versions. Throws (the whole update NACKed, nothing changed) only when even the held set with
 * the removals alone is refused.
 */
async function isolate(
  held: ReadonlyMap<string, Resource>,
  update: XdsUpdate,
  plan: Plan,
  err: unknown,
  tryApply: TryApply,
  source: string,
): Promise<Outcome> {
  const refused = new Map<string, string>();
  // A bind that cannot listen (port taken) or a resource the runtime names: leave it out and retry once.
  for (const c of err instanceof ProblemError ? culpritsOf(err, plan.next, update) : []) refused.set(c.name, c.message);
  const candidates = () =>
    update.upserts.filter((u) => !refused.has(u.name)).sort((a, b) => kindRank(a.name) - kindRank(b.name));
  let accepted: XdsUpdate['upserts'] = [];
  let applied: { plan: Plan; refused: number } | undefined;
  const attempt = async (group: XdsUpdate['upserts']): Promise<unknown> => {
    // Refused upserts count as removed: their previous versions are not served either.
    const removes = [...update.removes, ...refused.keys()];
    const p = planUpdate(held, { upserts: [...accepted, ...group], removes }, source);
    try {
      await tryApply(p.next);
    } catch (e) {
      return e;
    }
    accepted = [...accepted, ...group];
    applied = { plan: p, refused: refused.size };
    return undefined;
  };
  // Halves until the refused resources stand alone; dependencies go first, so a half never lacks one.
  const bisect = async (group: XdsUpdate['upserts']): Promise<void> => {
    if (group.length === 0) return;
    const failure = await attempt(group);
    if (failure === undefined) return;
    if (group.length === 1) {
      refused.set(group[0]!.name, messageOf(failure));
      return;
    }
    const mid = Math.ceil(group.length / 2);
    await bisect(group.slice(0, mid));
    await bisect(group.slice(mid));
  };
  if (refused.size > 0 && (await attempt(candidates())) === undefined) return result(applied!.plan, refused);
  await bisect(candidates());
  // Upserts refused after the last applied attempt still have their previous versions in it: once more without.
  if ((!applied || applied.refused < refused.size) && (await attempt([])) !== undefined && !applied) throw err;
  return result(applied!.plan, refused);
}

function result(plan: Plan, refused: ReadonlyMap<string, string>): Outcome {
  const errors: ResourceError[] = [...refused].map(([name, message]) => ({ name, message }));
  for (const e of plan.errors) if (!refused.has(e.name)) errors.push(e);
  return { next: plan.next, errors, dropped: plan.dropped };
}

function messageOf(err: unknown): string {
  if (err instanceof ProblemError)
    return err.problems.map((p) => `${p.path ? `${p.path}: ` : ''}${p.message}`).join('; ');
  return err instanceof Error ? err.message : String(err);
}

/** Upserts the runtime's problems name: `Bind NAME` (or, for a failed listen, only the port), `Route NAME`, … */
function culpritsOf(err: ProblemError, next: ReadonlyMap<string, Resource>, update: XdsUpdate): ResourceError[] {
  const out: ResourceError[] = [];
  const inUpdate = new Set(update.upserts.map((u) => u.name));
  for (const p of err.problems) {
    const named = /^([A-Z][a-z]+) (.+)$/.exec(p.object ?? '');
    const port = /cannot listen on .*:(\d+):/.exec(p.message)?.[1];
    for (const [name, r] of next) {
      if (!inUpdate.has(name) || out.some((e) => e.name === name)) continue;
      const value = r.kind ? (r[r.kind] as { name?: string } | undefined) : undefined;
      const byName = named && r.kind === named[1]!.toLowerCase() && value?.name === named[2];
      const byPort = !named && port !== undefined && r.bind && String(r.bind.port) === port;
      if (byName || byPort) out.push({ name, message: `${p.path ? `${p.path}: ` : ''}${p.message}` });
    }
  }
  return out;
}
