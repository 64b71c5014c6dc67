// `make gateway-api-schemas`: writes src/api/gen/gateway-api/, the schema of every Gateway API kind the controller
// reads (src/controller/resources.ts), taken from the CRDs of the sigs.k8s.io/gateway-api release that
// test/cluster/go.mod requires, which are the files the e2e cluster installs. Each <plural>.json holds every
// version's openAPIV3Schema without descriptions; stamp.json records the module version, its go.sum hash and
// the sha256 of each source and written file, so a unit test without Go can tell a stale or hand-edited copy.
// `--check` writes nothing and exits 1 when a file would change.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { ALTERNATIVES, WATCHED } from '../src/controller/resources.js';
import { gatewayApiModule } from '../test/e2e/support/gateway-api.js';

export const GATEWAY_API_GROUP = 'gateway.networking.k8s.io';
export const schemaDir = join(import.meta.dirname, '..', 'src', 'api', 'gen', 'gateway-api');
export const STAMP_FILE = 'stamp.json';

export interface GatewayApiStamp {
  module: string;
  version: string;
  sum: string;
  /** CRD file of the module (config/crd/standard) → sha256 of its text. */
  sources: Record<string, string>;
  /** File written here → sha256 of its text. */
  files: Record<string, string>;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Kinds of the Gateway API group the controller watches (or falls back to), in the order the table lists them. */
export function controllerKinds(): string[] {
  const all = [...Object.values(WATCHED), ...Object.values(ALTERNATIVES).flat()];
  return [...new Set(all.filter((r) => r.group === GATEWAY_API_GROUP).map((r) => r.kind))];
}

export const sha256 = (text: string): string => `sha256:${createHash('sha256').update(text).digest('hex')}`;

/** A schema node without `description` (a property *named* description, such as GatewayClass's, stays). */
function withoutDescriptions(node: Json): Json {
  if (Array.isArray(node)) return node.map(withoutDescriptions);
  if (node === null || typeof node !== 'object') return node;
  const out: { [k: string]: Json } = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'description') continue;
    if (k === 'properties')
      out[k] = Object.fromEntries(
        Object.entries(v as { [k: string]: Json }).map(([p, s]) => [p, withoutDescriptions(s)]),
      );
    else if (['items', 'additionalProperties', 'anyOf', 'allOf', 'oneOf', 'not'].includes(k))
      out[k] = withoutDescriptions(v);
    else out[k] = v;
  }
  return out;
}

interface Crd {
  spec: {
    group: string;
    scope: string;
    names: { kind: string; plural: string };
    versions: { name: string; served: boolean; schema: { openAPIV3Schema: Json } }[];
  };
}

/** The files of src/api/gen/gateway-api/ for these CRD texts (pure: the e2e suite compares it with the copy). */
export function renderGatewayApiSchemas(
  module: { version: string; sum: string },
  crdTexts: { file: string; text: string }[],
): { file: string; text: string }[] {
  const wanted = controllerKinds();
  const out: { file: string; text: string }[] = [];
  const sources: Record<string, string> = {};
  for (const { file, text } of [...crdTexts].sort((a, b) => a.file.localeCompare(b.file))) {
    const crd = parse(text) as Crd;
    if (crd.spec.group !== GATEWAY_API_GROUP || !wanted.includes(crd.spec.names.kind)) continue;
    sources[file] = sha256(text);
    const body = {
      group: crd.spec.group,
      kind: crd.spec.names.kind,
      plural: crd.spec.names.plural,
      scope: crd.spec.scope,
      versions: crd.spec.versions.map((v) => ({
        name: v.name,
        served: v.served,
        openAPIV3Schema: withoutDescriptions(v.schema.openAPIV3Schema),
      })),
    };
    out.push({ file: `${crd.spec.names.plural}.json`, text: `${JSON.stringify(body, null, 2)}\n` });
  }
  const found = out.map((f) => (JSON.parse(f.text) as { kind: string }).kind);
  const missing = wanted.filter((k) => !found.includes(k));
  if (missing.length) throw new Error(`gateway-api-schemas: no CRD for ${missing.join(', ')} in the module's files`);
  const stamp: GatewayApiStamp = {
    module: 'sigs.k8s.io/gateway-api',
    version: module.version,
    sum: module.sum,
    sources,
    files: Object.fromEntries(out.map((f) => [f.file, sha256(f.text)])),
  };
  return [...out, { file: STAMP_FILE, text: `${JSON.stringify(stamp, null, 2)}\n` }];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check');
  const mod = gatewayApiModule();
  const files = renderGatewayApiSchemas(
    mod,
    mod.crdFiles.map((f) => ({ file: basename(f), text: readFileSync(f, 'utf8') })),
  );
  mkdirSync(schemaDir, { recursive: true });
  let stale = 0;
  for (const { file, text } of files) {
    const path = join(schemaDir, file);
    if (existsSync(path) && readFileSync(path, 'utf8') === text) continue;
    stale++;
    if (check) console.error(`src/api/gen/gateway-api/${file} is out of date; run make gateway-api-schemas`);
    else writeFileSync(path, text);
  }
  for (const file of readdirSync(schemaDir).filter((f) => !files.some((w) => w.file === f))) {
    stale++;
    if (check) console.error(`src/api/gen/gateway-api/${file} is not generated; run make gateway-api-schemas`);
    else rmSync(join(schemaDir, file));
  }
  if (!check) console.log(`gateway-api-schemas: Gateway API ${mod.version}, ${stale} file(s) changed`);
  process.exit(check && stale > 0 ? 1 : 0);
}
