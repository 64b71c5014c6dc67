// The admin API client: same origin, the admin token (when the proxy asks for one) in a header, kept in
// memory only (no cookie, no storage), so a reload asks again.
export const API = '/ui/api/v1/';

let adminToken = '';

export function setAdminToken(token: string): void {
  adminToken = token.trim();
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function getJson<T>(name: string): Promise<T> {
  const headers: Record<string, string> = adminToken ? { authorization: `Bearer ${adminToken}` } : {};
  const res = await fetch(`${API}${name}`, { headers });
  const body = (await res.json().catch(() => ({}))) as { error_description?: string };
  if (!res.ok) throw new ApiError(res.status, body.error_description ?? `HTTP ${res.status}`);
  return body as T;
}

export interface Refusal {
  field: string;
  source: string;
  reason: string;
  security: boolean;
}

export interface Overview {
  role: string;
  gateway: string;
  pod: string;
  gwVersion: string;
  worker: number | null;
  ready: boolean;
  snapshotVersion: string;
  xds: {
    connected: boolean;
    version: string;
    ack: string;
    nacked: { name: string; message: string }[];
    updatedAt?: string;
  } | null;
}

export interface RouteView {
  name: string;
  listeners: string[];
  hostnames: string[];
  matches: string[];
  backends: { backend: string; weight: number }[];
  policy: { field: string; source: string }[];
  refusals: Refusal[];
  unserved: { reason: string; message: string }[];
}

export interface SnapshotView {
  binds: { name: string; address: string; port: number }[];
  listeners: { name: string; bind: string; protocol: string; hostnames: string[]; refusals: Refusal[] }[];
  routes: RouteView[];
  backends: { name: string; kind: string; summary: string }[];
}

export interface McpView {
  targets: { backend: string; name: string; transport: string; health: string }[];
  /** `worker`: the count is that worker's only (--workers). */
  sessions: { active: number; worker: number | null };
}

export interface LlmView {
  providers: { backend: string; group: number; name: string; kind: string; host: string; health: string }[];
  models: { name: string; match: string; target: string; refusals: Refusal[] }[];
}
