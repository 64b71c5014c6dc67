// The coverage table's vocabulary: every leaf field path of every kind is enforced (naming the IR
// field that carries it), refused (the reason users read) or control plane only (issue 14); and every
// one says whether it concerns security (issue 31): a security field that cannot be applied as written,
// or an invalid object that sets one, makes what it targets refuse traffic rather than run without it.

/** `enforced`: `IrMessage.field` (proto message, camelCase field) the proxy acts on. */
export type Coverage = (
  | { enforced: string; note?: string }
  | { refused: string; values?: readonly string[] }
  | { controlPlane: string; readers: readonly string[] }
) & { security: boolean };

/**
 * Field-path pattern → coverage. `[]` stands for any array index; a trailing `.*` covers the whole
 * subtree (the path itself included). The most specific (longest) matching pattern wins.
 */
export type CoverageTable = Readonly<Record<string, Coverage>>;

export const refused = (reason: string, security = false, values?: readonly string[]): Coverage =>
  values ? { refused: reason, security, values } : { refused: reason, security };
export const enforced = (irField: string, note?: string): Coverage =>
  note ? { enforced: irField, note, security: false } : { enforced: irField, security: false };
/**
 * `readers`: the files (repository paths) that consume the field; test/coverage/control-plane-readers.test.ts
 * checks each exists and names the field, so a "control plane" row cannot hide a setting nothing reads.
 */
export const controlPlane = (what: string, readers: readonly string[]): Coverage => ({
  controlPlane: what,
  readers,
  security: false,
});

/**
 * The same entries, each marked as concerning security: authentication, authorization, extAuth, CSRF, CORS,
 * network authorization, TLS, guards and guardrails. The one place a field becomes security-relevant.
 */
export function guarding(table: CoverageTable): CoverageTable {
  return Object.fromEntries(Object.entries(table).map(([k, v]) => [k, { ...v, security: true }]));
}

/** The same sub-table under another root (`spec.backend` for GwPolicy, `spec.policies` for GwBackend). */
export function under(prefix: string, table: CoverageTable): CoverageTable {
  return Object.fromEntries(Object.entries(table).map(([k, v]) => [`${prefix}.${k}`, v]));
}
