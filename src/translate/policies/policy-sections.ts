// The three sections a GwPolicy sets (frontend, traffic, backend) as their src/api schema types, and merged
// fields keyed `section.field` with each value typed by its section: what the merge consumes and produces.
import type { BackendFull, Frontend, TrafficPolicy } from '../../api/index.js';

/** Each section's schema type: the values a candidate sets in it (a GwBackend's own `policies` are a BackendFull subset). */
export interface SectionTypes {
  frontend: Frontend;
  traffic: TrafficPolicy;
  backend: BackendFull;
}

export type Section = keyof SectionTypes;

type Prefixed<S extends Section> = {
  [K in keyof SectionTypes[S] & string as `${S}.${K}`]?: SectionTypes[S][K];
};

/** Effective fields by section-qualified path (`traffic.cors`), each with its section schema's type. */
export type EffectiveFields = Prefixed<'frontend'> & Prefixed<'traffic'> & Prefixed<'backend'>;

/** One section of merged fields as its schema object (`traffic.cors` → `cors`). */
export function sectionOf<S extends Section>(fields: EffectiveFields, section: S): SectionTypes[S] {
  const out: Record<string, unknown> = {};
  const prefix = `${section}.`;
  for (const [k, v] of Object.entries(fields)) if (k.startsWith(prefix)) out[k.slice(prefix.length)] = v;
  return out as SectionTypes[S];
}
