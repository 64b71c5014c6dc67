// BackendAuth `aws`, `azure` and `gcp` for LLM providers: the Secret each names, read into the IR
// credential the proxy signs with or exchanges for a token. Pure: every read goes through the context.
// Messages name the field, the Secret and the key, never a value. Behaviour: docs/llm-providers.md.
import type { Ctx } from '../objects/context.js';
import { secretData } from '../policies/policy-secrets.js';
import type { AiCredentialInput } from '../../ir/types.js';
import type { CredentialAuth } from '../objects/gw-types.js';
import { rec, str, type Rec } from '../objects/read.js';

type At = (field: string) => string;
type Aws = NonNullable<CredentialAuth['aws']>;
type Azure = NonNullable<CredentialAuth['azure']>;
type Gcp = NonNullable<CredentialAuth['gcp']>;

/** The cloud credential of `auth`, undefined when it sets no cloud kind, or why it cannot be used. */
export function cloudCredential(
  ctx: Ctx,
  auth: CredentialAuth,
  ns: string,
  source: string,
  at: At,
): AiCredentialInput | string | undefined {
  const { aws, azure, gcp } = auth;
  if (aws) return awsCredential(ctx, aws, ns, source, at);
  if (azure) return azureCredential(ctx, azure, ns, at);
  if (gcp) return gcpCredential(ctx, gcp, ns, at);
  return undefined;
}

/**
 * Why a `backend.auth` cannot be served as written, for a GwPolicy's status (field path → reason);
 * empty when it can (a missing Secret is a ResolvedRefs matter, not this).
 */
export function unservableCloudAuth(auth: CredentialAuth): Record<string, string> {
  const out: Record<string, string> = {};
  const { aws, azure, gcp } = auth;
  if (aws?.assumeRole !== undefined) out['aws.assumeRole'] = ASSUME_ROLE;
  if (azure && !azure.secretRef) out[`azure${azureMode(azure)}`] = AZURE_IDENTITY;
  if (gcp && gcp.type === 'IdToken') out['gcp.type'] = GCP_ID_TOKEN;
  else if (gcp && !gcp.secretRef) out.gcp = GCP_IMPLICIT;
  return out;
}

const ASSUME_ROLE =
  "assuming a role is not supported yet; give the role's keys in secretRef, or leave secretRef out to use the proxy's own AWS environment";
const AZURE_IDENTITY = 'only secretRef (a client secret) is supported yet, not managed, workload or implicit identity';
const GCP_ID_TOKEN = 'IdToken is not supported for LLM providers; they take AccessToken';
const GCP_IMPLICIT =
  'secretRef (a service account credentials.json) is required; implicit credentials are not supported yet';

const azureMode = (azure: Azure): string =>
  azure.managedIdentity !== undefined
    ? '.managedIdentity'
    : azure.workloadIdentity !== undefined
      ? '.workloadIdentity'
      : '';

/** The Secret's keys as text (base64 `data` decoded, trimmed), or why the Secret cannot be read. */
function secretOf(
  ctx: Ctx,
  ns: string,
  ref: { name: string },
  at: string,
): { name: string; data: Record<string, string> } | string {
  const name = ref.name;
  const data = secretData(ctx, ns, name);
  if (!data) return `${at}: Secret ${ns}/${name} does not exist`;
  return { name, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, v.trim()])) };
}

function required(
  s: { name: string; data: Record<string, string> },
  ns: string,
  keys: string[],
  at: string,
): string | undefined {
  const missing = keys.filter((k) => !s.data[k]);
  return missing.length ? `${at}: Secret ${ns}/${s.name} has no non-empty key ${missing.join(', ')}` : undefined;
}

function awsCredential(ctx: Ctx, aws: Aws, ns: string, source: string, at: At): AiCredentialInput | string {
  if (aws.assumeRole !== undefined) return `${at('aws.assumeRole')}: ${ASSUME_ROLE}`;
  const base = { region: aws.region ?? '', serviceName: aws.serviceName ?? '' };
  const ref = aws.secretRef;
  // Without a Secret the proxy signs with its own environment's keys (docs/llm-providers.md).
  if (!ref)
    return {
      kind: 'aws',
      aws: { accessKeyId: '', secretAccessKey: '', sessionToken: '', ...base },
      source: `${source} (proxy environment)`,
    };
  const s = secretOf(ctx, ns, ref, at('aws.secretRef'));
  if (typeof s === 'string') return s;
  const missing = required(s, ns, ['accessKey', 'secretKey'], at('aws.secretRef'));
  if (missing) return missing;
  return {
    kind: 'aws',
    aws: {
      accessKeyId: s.data.accessKey ?? '',
      secretAccessKey: s.data.secretKey ?? '',
      sessionToken: s.data.sessionToken ?? '',
      ...base,
    },
    source: `Secret ${ns}/${s.name}`,
  };
}

function azureCredential(ctx: Ctx, azure: Azure, ns: string, at: At): AiCredentialInput | string {
  const ref = azure.secretRef;
  if (!ref) return `${at(`azure${azureMode(azure)}`)}: ${AZURE_IDENTITY}`;
  const s = secretOf(ctx, ns, ref, at('azure.secretRef'));
  if (typeof s === 'string') return s;
  const missing = required(s, ns, ['clientID', 'tenantID', 'clientSecret'], at('azure.secretRef'));
  if (missing) return missing;
  if (!/^[A-Za-z0-9.-]+$/.test(s.data.tenantID ?? ''))
    return `${at('azure.secretRef')}: Secret ${ns}/${s.name} key tenantID must be a tenant ID or domain name`;
  return {
    kind: 'azure',
    azure: {
      tenantId: s.data.tenantID ?? '',
      clientId: s.data.clientID ?? '',
      clientSecret: s.data.clientSecret ?? '',
    },
    source: `Secret ${ns}/${s.name}`,
  };
}

function gcpCredential(ctx: Ctx, gcp: Gcp, ns: string, at: At): AiCredentialInput | string {
  if (gcp.type === 'IdToken') return `${at('gcp.type')}: ${GCP_ID_TOKEN}`;
  const ref = gcp.secretRef;
  if (!ref) return `${at('gcp')}: ${GCP_IMPLICIT}`;
  const key = ref.key ?? 'credentials.json';
  const s = secretOf(ctx, ns, ref, at('gcp.secretRef'));
  if (typeof s === 'string') return s;
  const missing = required(s, ns, [key], at('gcp.secretRef'));
  if (missing) return missing;
  const where = `${at('gcp.secretRef')}: Secret ${ns}/${s.name} key ${key}`;
  // The credentials file is free-form Secret text: its parsed JSON is read defensively.
  let file: Rec | undefined;
  try {
    file = rec(JSON.parse(s.data[key] ?? '') as unknown);
  } catch {
    // The parser's message may quote the file (a private key): never pass it on.
    file = undefined;
  }
  if (!file) return `${where} is not a JSON object`;
  if (str(file.type) !== 'service_account') return `${where} must be a service account key (type service_account)`;
  const email = str(file.client_email),
    privateKey = str(file.private_key),
    tokenUri = str(file.token_uri) ?? 'https://oauth2.googleapis.com/token';
  if (!email || !privateKey) return `${where} must have client_email and private_key`;
  if (!/^https?:\/\//.test(tokenUri)) return `${where} token_uri must be an http(s) URL`;
  return {
    kind: 'gcp',
    gcp: { clientEmail: email, privateKey, privateKeyId: str(file.private_key_id) ?? '', tokenUri },
    source: `Secret ${ns}/${s.name} key ${key}`,
  };
}
