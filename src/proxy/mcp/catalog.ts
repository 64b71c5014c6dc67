// What a session's targets offer, merged: pages of tools, prompts, resources and templates across
// targets, the names the client sees, and which target owns each exposed name or URI.
import type { ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { RpcError, isRpcError } from './rpc-error.js';
import type { Logger } from 'pino';
import { InternalError, messageOf } from './jsonrpc.js';
import { exposedName, splitPrefixed } from './multiplex.js';
import type { Upstream } from './target-connection.js';
import { SessionGone } from './session-recovery.js';
import { targetDenial } from './target-ext-auth.js';

export type ListKind = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';
export const lists: Record<ListKind, { method: string; key: string; capability: keyof ServerCapabilities }> = {
  tools: { method: 'tools/list', key: 'tools', capability: 'tools' },
  prompts: { method: 'prompts/list', key: 'prompts', capability: 'prompts' },
  resources: { method: 'resources/list', key: 'resources', capability: 'resources' },
  resourceTemplates: { method: 'resources/templates/list', key: 'resourceTemplates', capability: 'resources' },
};

export type Item = Record<string, unknown>;

export interface CatalogOptions {
  /** The session's connected targets (the map is the session's own, so later changes show). */
  upstreams: ReadonlyMap<string, Upstream>;
  targetNames: string[];
  prefixed: boolean;
  failOpen: boolean;
  /** Bound of one list call to `target`. */
  timeoutMs(target: string): number;
  log: Logger;
  onTargetFailure(target: string, phase: string): void;
  /** The target's connection, revived if its process died (session-recovery.ts); undefined when there is none. */
  live(target: string): Promise<Upstream | undefined>;
  /** Left out by passive health (target-health.ts): no list asks it. */
  ejected?(target: string): boolean;
}

export class Catalog {
  /** Exposed name or URI → target, learned from lists (needed when names are not prefixed). */
  private readonly routes: Record<ListKind, Map<string, string>> = {
    tools: new Map(),
    prompts: new Map(),
    resources: new Map(),
    resourceTemplates: new Map(),
  };

  constructor(private readonly opts: CatalogOptions) {}

  /** A target's list changed: names must be learned again. */
  forget(kind: 'tools' | 'prompts'): void {
    this.routes[kind].clear();
  }

  /** Every live target that offers this kind of list, each at its first page. */
  firstPages(kind: ListKind): Record<string, string | undefined> {
    const capability = lists[kind].capability;
    return Object.fromEntries(
      [...this.opts.upstreams.values()]
        .filter((u) => (u.alive || u.processLocal) && u.capabilities[capability] && !this.opts.ejected?.(u.name))
        .map((u) => [u.name, undefined]),
    );
  }

  async fetchPage(
    kind: ListKind,
    pending: Record<string, string | undefined>,
  ): Promise<{ items: Item[]; next: Record<string, string> }> {
    const spec = lists[kind];
    const { failOpen } = this.opts;
    const pages = await Promise.all(
      Object.entries(pending).map(async ([target, cursor]) => {
        // A target whose own backend.extAuth denies this request adds nothing to the list (target-ext-auth.ts).
        const gate = targetDenial(target);
        if (gate && (await gate)) return undefined;
        const up = await this.opts.live(target).catch((err: unknown) => {
          if (err instanceof SessionGone || !failOpen) throw err;
          return undefined;
        });
        if (!up?.alive) {
          if (failOpen) return undefined;
          throw new RpcError(InternalError, `target ${target} is not connected`);
        }
        try {
          const result = await up.call(spec.method, cursor ? { cursor } : {}, {
            timeoutMs: this.opts.timeoutMs(target),
          });
          return { target, result: result as Item };
        } catch (err) {
          if (err instanceof SessionGone) throw err;
          this.opts.onTargetFailure(target, spec.method);
          if (failOpen) {
            this.opts.log.warn({ target, method: spec.method, err: messageOf(err) }, 'skipping a failed target');
            return undefined;
          }
          throw new RpcError(isRpcError(err) ? err.code : InternalError, `target ${target}: ${messageOf(err)}`);
        }
      }),
    );
    const items: Item[] = [];
    const next: Record<string, string> = {};
    for (const page of pages) {
      if (!page) continue;
      const got = page.result[spec.key];
      for (const item of Array.isArray(got) ? (got as Item[]) : []) {
        const shown = this.expose(kind, page.target, item);
        if (shown) items.push(shown);
      }
      if (typeof page.result.nextCursor === 'string') next[page.target] = page.result.nextCursor;
    }
    return { items, next };
  }

  /** Renames a listed item for the client and remembers which target owns it; undefined for a URI another target owns. */
  private expose(kind: ListKind, target: string, item: Item): Item | undefined {
    const routes = this.routes[kind];
    if (kind === 'tools' || kind === 'prompts') {
      const name = exposedName(target, String(item.name), this.opts.prefixed);
      const owner = routes.get(name);
      if (!this.opts.prefixed && owner !== undefined && owner !== target) {
        throw new RpcError(
          InternalError,
          `${kind === 'tools' ? 'tool' : 'prompt'} name ${name} is offered by targets ${owner} and ${target}; prefixMode Never needs unique names`,
        );
      }
      routes.set(name, target);
      return { ...item, name };
    }
    // Two targets serving one URI: the first target (in the backend's order) owns it, listed once.
    const uri = String(kind === 'resources' ? item.uri : item.uriTemplate);
    const owner = routes.get(uri);
    if (owner !== undefined && owner !== target && this.opts.upstreams.has(owner)) return undefined;
    routes.set(uri, target);
    return item;
  }

  async resolveNamed(kind: 'tools' | 'prompts', exposed: string): Promise<{ up: Upstream; name: string } | undefined> {
    const now = this.resolveNamedNow(kind, exposed);
    if (now !== 'list') return now;
    await this.refresh(kind);
    const up = this.opts.upstreams.get(this.routes[kind].get(exposed) ?? '');
    return up ? { up, name: exposed } : undefined;
  }

  /** The target a prefixed name names, connected or not; undefined when names are not prefixed. */
  prefixOwner(exposed: string): string | undefined {
    return this.opts.prefixed ? splitPrefixed(exposed, this.opts.targetNames)?.target : undefined;
  }

  /**
   * The owner of a name when it is known without asking the targets (by prefix, a lone target, or a name
   * already listed): the call's hot path costs no promise; 'list' when the targets' lists must be fetched.
   */
  resolveNamedNow(kind: 'tools' | 'prompts', exposed: string): { up: Upstream; name: string } | undefined | 'list' {
    if (this.opts.prefixed) {
      const split = splitPrefixed(exposed, this.opts.targetNames);
      const up = split && this.opts.upstreams.get(split.target);
      return up && split ? { up, name: split.name } : undefined;
    }
    if (this.opts.upstreams.size === 1) {
      const [up] = this.opts.upstreams.values();
      return up ? { up, name: exposed } : undefined;
    }
    if (!this.routes[kind].has(exposed)) return 'list';
    const up = this.opts.upstreams.get(this.routes[kind].get(exposed) ?? '');
    return up ? { up, name: exposed } : undefined;
  }

  async resolveResource(uri: string): Promise<Upstream | undefined> {
    if (this.opts.upstreams.size === 1) return [...this.opts.upstreams.values()][0];
    const find = (): string | undefined =>
      this.routes.resources.get(uri) ??
      [...this.routes.resourceTemplates].find(
        ([tpl]) => uri.startsWith(tpl.split('{')[0] ?? tpl) && tpl.includes('{'),
      )?.[1];
    let target = find();
    if (target === undefined) {
      const ignore = (err: unknown): void => {
        if (err instanceof SessionGone) throw err;
      };
      await this.refresh('resources').catch(ignore);
      await this.refresh('resourceTemplates').catch(ignore);
      target = find();
    }
    return target === undefined ? undefined : this.opts.upstreams.get(target);
  }

  /** Walks every page of a list so name lookups see everything. */
  private async refresh(kind: ListKind): Promise<void> {
    let pending = this.firstPages(kind);
    for (let pageCount = 0; Object.keys(pending).length > 0 && pageCount < 100; pageCount++) {
      pending = (await this.fetchPage(kind, pending)).next;
    }
  }
}
