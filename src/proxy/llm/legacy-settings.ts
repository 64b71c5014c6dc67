// Transitional: GwBackend providers from a translator that does not fill AiProvider.settings yet
// (src/translate/backends.ts is outside the typed-LLM change, issue 14). Converts the settings JSON
// once per snapshot into the typed message; delete when backends.ts calls aiProviderSettings().
import type { AiProviderSettings__Output as AiProviderSettings } from '../../ir/gen/gw/ir/v1/AiProviderSettings.js';
import { EMPTY_SETTINGS } from './vendors.js';

export function legacySettings(text: string): AiProviderSettings {
  let v: unknown;
  try {
    v = JSON.parse(text || '{}');
  } catch {
    return EMPTY_SETTINGS;
  }
  const o = v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  const s = (k: string): string => (typeof o[k] === 'string' ? (o[k] as string) : '');
  const g = o.guardrail as { identifier?: unknown; version?: unknown } | undefined;
  const formats = Array.isArray(o.formats) ? (o.formats as { format?: unknown; path?: unknown }[]) : [];
  return {
    ...EMPTY_SETTINGS,
    model: s('model'), endpoint: s('endpoint'), apiVersion: s('apiVersion'), deploymentName: s('deploymentName'), region: s('region'),
    resourceName: s('resourceName'), resourceType: s('resourceType'), projectName: s('projectName'), projectId: s('projectId'), providerOverride: s('providerOverride'),
    guardrail: typeof g?.identifier === 'string' && typeof g.version === 'string' ? { identifier: g.identifier, version: g.version } : null,
    formats: formats.filter((f) => typeof f.format === 'string').map((f) => ({ format: f.format as string, path: typeof f.path === 'string' ? f.path : '' })),
  };
}
