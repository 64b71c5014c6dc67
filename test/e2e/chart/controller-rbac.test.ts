// The chart's RBAC, asked of the real authorizer as the controller's ServiceAccount: enough for what the
// controller does, nothing more. Table: testdata/controller-rbac.yaml.
//
// The table's ~400 questions go to the authorizer as SubjectAccessReviews for the identity
// `kubectl auth can-i --as system:serviceaccount:NS:SA` impersonates (the account and its groups): one
// HTTP call each instead of one kubectl process each on a shared 2-core machine. A sample of them is
// also asked through `kubectl auth can-i --as` and must get the same answers.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AuthorizationV1Api } from '@kubernetes/client-node';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import { e2eKubeConfig, kubectl, useNamespace } from '../support/kube.js';
import type { CommandResult } from '../support/kube.js';
import { mustGet, mustInstall } from './helm-release.js';

type Scope = 'cluster' | 'release' | 'gateway' | 'outside';

interface Row {
  scope: Scope;
  verbs: string[];
  resources: string[];
  subresource?: string;
}

const table = parse(
  readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'testdata', 'controller-rbac.yaml'), 'utf8'),
) as {
  allowed: Row[];
  denied: Row[];
};

interface Release {
  label: string;
  namespace: () => string;
  /** Namespaces of each scope this release has (cluster is implied). */
  scopes: Partial<Record<Exclude<Scope, 'cluster'>, () => string[]>>;
}

interface Question {
  verb: string;
  /** `resource[.group]`, as kubectl spells it. */
  resource: string;
  subresource?: string;
  /** undefined: all namespaces, or a cluster-scoped resource. */
  namespace?: string;
}

const serviceAccount = (ns: string) => `system:serviceaccount:${ns}:gw`;

function questionsOf(release: Release, row: Row): Question[] {
  const namespaces = row.scope === 'cluster' ? [undefined] : (release.scopes[row.scope]?.() ?? []);
  return namespaces.flatMap((namespace) =>
    row.resources.flatMap((resource) =>
      row.verbs.map((verb) => ({ verb, resource, subresource: row.subresource, namespace })),
    ),
  );
}

function describeQuestion(q: Question): string {
  return `${q.verb} ${q.resource}${q.subresource ? `/${q.subresource}` : ''} ${q.namespace ? `in ${q.namespace}` : 'cluster-wide'}`;
}

/** The authorizer's answer for the release's ServiceAccount, with the groups impersonation gives it. */
async function allowedBySar(release: Release, q: Question): Promise<boolean> {
  const ns = release.namespace();
  const dot = q.resource.indexOf('.');
  const review = await e2eKubeConfig()
    .makeApiClient(AuthorizationV1Api)
    .createSubjectAccessReview({
      body: {
        spec: {
          user: serviceAccount(ns),
          groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
          resourceAttributes: {
            verb: q.verb,
            resource: dot < 0 ? q.resource : q.resource.slice(0, dot),
            group: dot < 0 ? '' : q.resource.slice(dot + 1),
            subresource: q.subresource ?? '',
            namespace: q.namespace ?? '',
          },
        },
      },
    });
  return review.status?.allowed === true;
}

/** `kubectl auth can-i --as`: exit 0 = yes, 1 = no, anything else is an error. */
async function allowedByKubectl(release: Release, q: Question): Promise<boolean> {
  const args = [
    'auth',
    'can-i',
    q.verb,
    q.resource,
    '--as',
    serviceAccount(release.namespace()),
    ...(q.namespace ? ['-n', q.namespace] : ['--all-namespaces']),
  ];
  if (q.subresource) args.push(`--subresource=${q.subresource}`);
  const res = await kubectl(inject('kubeconfig'), args);
  if (res.stdout.trim() === 'yes' && res.code === 0) return true;
  if (res.stdout.trim() === 'no' && res.code === 1) return false;
  throw new Error(`kubectl ${args.join(' ')} gave exit ${res.code}: ${res.stdout}${res.stderr}`);
}

/** The questions of a row whose answer is not `expected`, spelled for the assertion message. */
async function mismatches(release: Release, row: Row, expected: boolean): Promise<string[]> {
  const questions = questionsOf(release, row);
  if (questions.length === 0) throw new Error(`row ${describeRow(row)} asks nothing of ${release.label}`);
  const answers = await Promise.all(questions.map((q) => allowedBySar(release, q)));
  return questions
    .filter((_, i) => answers[i] !== expected)
    .map((q) => `${expected ? 'cannot' : 'can'} ${describeQuestion(q)}`);
}

function describeRow(row: Row): string {
  const where = {
    cluster: 'cluster-wide',
    release: 'in the release namespace',
    gateway: 'in a gateway namespace',
    outside: 'outside the listed namespaces',
  }[row.scope];
  return `${row.verbs.join('/')} ${row.resources.join(', ')}${row.subresource ? ` (${row.subresource})` : ''} ${where}`;
}

const appliesTo = (release: Release, row: Row) => row.scope === 'cluster' || release.scopes[row.scope] !== undefined;

/** Server-side apply of a minimal proxy-like Deployment as the controller, with its field manager. */
function applyDeploymentAs(release: Release, ns: string): Promise<CommandResult> {
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'proxy', namespace: ns },
    spec: {
      selector: { matchLabels: { app: 'proxy' } },
      template: {
        metadata: { labels: { app: 'proxy' } },
        spec: { containers: [{ name: 'proxy', image: 'ghcr.io/gw-dev/proxy:0.1.0' }] },
      },
    },
  };
  const args = [
    'apply',
    '--server-side',
    '--field-manager=gw-controller',
    '--as',
    serviceAccount(release.namespace()),
    '-f',
    '-',
  ];
  return kubectl(inject('kubeconfig'), args, JSON.stringify(deployment));
}

describe('controller RBAC of charts/gw', () => {
  const clusterWideNs = useNamespace('rbac-cluster');
  const scopedNs = useNamespace('rbac-scoped');
  const listedA = useNamespace('rbac-listed-a');
  const listedB = useNamespace('rbac-listed-b');
  const unlisted = useNamespace('rbac-unlisted');

  const clusterWide: Release = {
    label: 'cluster-wide release',
    namespace: clusterWideNs,
    scopes: { release: () => [clusterWideNs()], gateway: () => [unlisted()] },
  };
  const scoped: Release = {
    label: 'release with rbac.gatewayNamespaces',
    namespace: scopedNs,
    scopes: {
      release: () => [scopedNs()],
      gateway: () => [listedA(), listedB()],
      outside: () => [unlisted(), scopedNs()],
    },
  };

  beforeAll(async () => {
    // Other files apply crds/ with their own field manager; helm 4 would re-apply the chart's copy and
    // conflict with them, and authorization does not need the CRDs: this file leaves them alone.
    const kubeconfig = inject('kubeconfig');
    // Class names are cluster-scoped: one per release so files sharing the API server never collide.
    await Promise.all([
      mustInstall(kubeconfig, {
        name: 'gw',
        namespace: clusterWideNs(),
        skipCrds: true,
        values: { gatewayClassName: clusterWideNs() },
      }),
      mustInstall(kubeconfig, {
        name: 'gw',
        namespace: scopedNs(),
        skipCrds: true,
        values: { gatewayClassName: scopedNs(), 'rbac.gatewayNamespaces': [listedA(), listedB()] },
      }),
    ]);
  });

  for (const release of [clusterWide, scoped]) {
    describe(release.label, () => {
      for (const row of table.allowed.filter((r) => appliesTo(release, r))) {
        it(`may ${describeRow(row)}`, async () => {
          expect(await mismatches(release, row, true)).toEqual([]);
        });
      }
      for (const row of table.denied.filter((r) => appliesTo(release, r))) {
        it(`may not ${describeRow(row)}`, async () => {
          expect(await mismatches(release, row, false)).toEqual([]);
        });
      }

      it('kubectl auth can-i --as gives the same answers as the reviews (first question of every row)', async () => {
        const sample = [...table.allowed, ...table.denied]
          .filter((r) => appliesTo(release, r))
          .map((r) => questionsOf(release, r)[0]!);
        const disagreements: string[] = [];
        for (let i = 0; i < sample.length; i += 4) {
          const batch = sample.slice(i, i + 4);
          const answers = await Promise.all(
            batch.map(async (q) => [await allowedByKubectl(release, q), await allowedBySar(release, q)]),
          );
          batch.forEach((q, j) => {
            const [viaKubectl, viaReview] = answers[j]!;
            if (viaKubectl !== viaReview)
              disagreements.push(`${describeQuestion(q)}: kubectl ${viaKubectl}, review ${viaReview}`);
          });
        }
        expect(disagreements).toEqual([]);
        expect(sample.length).toBeGreaterThan(10);
      });
    });
  }

  it('the controller server-side applies a proxy Deployment into a gateway namespace as field manager gw-controller', async () => {
    const res = await applyDeploymentAs(clusterWide, unlisted());
    expect(res.code, res.stderr).toBe(0);
    const deployment = await mustGet(inject('kubeconfig'), 'deployment', 'proxy', unlisted());
    const managers =
      (deployment.metadata as { managedFields?: { manager: string; operation: string }[] }).managedFields ?? [];
    expect(managers).toContainEqual(expect.objectContaining({ manager: 'gw-controller', operation: 'Apply' }));
  });

  it('with rbac.gatewayNamespaces the controller applies proxies in a listed namespace and is forbidden elsewhere', async () => {
    const listed = await applyDeploymentAs(scoped, listedA());
    expect(listed.code, listed.stderr).toBe(0);
    const outside = await applyDeploymentAs(scoped, unlisted());
    expect(outside.code).not.toBe(0);
    expect(outside.stderr).toMatch(/forbidden/i);
    expect(outside.stderr).toContain(
      `cannot patch resource "deployments" in API group "apps" in the namespace "${unlisted()}"`,
    );
  });

  it('the controller creates and renews its leader-election Lease in the release namespace only', async () => {
    const ns = clusterWideNs();
    const as = ['--as', serviceAccount(ns)];
    const lease = (namespace: string, holder: string, resourceVersion?: string) =>
      JSON.stringify({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'gw-controller', namespace, ...(resourceVersion ? { resourceVersion } : {}) },
        spec: { holderIdentity: holder, leaseDurationSeconds: 15 },
      });
    const created = await kubectl(inject('kubeconfig'), ['create', ...as, '-f', '-'], lease(ns, 'pod-a'));
    expect(created.code, created.stderr).toBe(0);
    const current = await mustGet(inject('kubeconfig'), 'lease', 'gw-controller', ns);
    // An update (PUT) with the read resourceVersion, as leader election renews.
    const renewed = await kubectl(
      inject('kubeconfig'),
      ['replace', ...as, '-f', '-'],
      lease(ns, 'pod-b', (current.metadata as { resourceVersion?: string }).resourceVersion),
    );
    expect(renewed.code, renewed.stderr).toBe(0);
    expect(
      (
        (await mustGet(inject('kubeconfig'), 'lease', 'gw-controller', ns)) as unknown as {
          spec: { holderIdentity: string };
        }
      ).spec.holderIdentity,
    ).toBe('pod-b');

    const elsewhere = await kubectl(inject('kubeconfig'), ['create', ...as, '-f', '-'], lease(unlisted(), 'pod-a'));
    expect(elsewhere.code).not.toBe(0);
    expect(elsewhere.stderr).toMatch(/forbidden/i);
  });
});
