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

export async function getJson<T>(name: string, init: RequestInit = {}): Promise<T> {
  const headers: Record<string, string> = adminToken ? { authorization: `Bearer ${adminToken}` } : {};
  const res = await fetch(`${API}${name}`, {
    ...init,
    headers: { ...headers, ...(init.headers as Record<string, string>) },
  });
  const body = (await res.json().catch(() => ({}))) as { error_description?: string };
  if (!res.ok) throw new ApiError(res.status, body.error_description ?? `HTTP ${res.status}`);
  return body as T;
}

export type {
  AccessEntry,
  AccessTailView,
  CelRequest,
  CelResult,
  LivePoint,
  LlmView,
  McpView,
  MetricsView,
  OverviewView as Overview,
  RefusalView as Refusal,
  RouteView,
  SnapshotView,
} from '../ui-api/types.js';
