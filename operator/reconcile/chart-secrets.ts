// The Secrets the Helm chart references and nobody else creates (issue #19): the first-admin credentials (the bridge's SVC_BRIDGE_ADMIN_* and
// the operator's own login), and the bundled PostgreSQL's password. Each is created when absent, with CSPRNG
// values, and never written again — an upgrade, a restart or a second replica finds it and leaves it. A
// user who pre-creates one (or deletes one to get fresh values) decides; a deleted admin Secret is recreated
// with a new password the already-initialised bridge does not know, which the Ships then report as
// BridgeUnauthorized. They live in the watched namespace (with --all-namespaces, the operator's own). Names
// and the generated admin username/email are options (defaults in names.ts).
import type { KubernetesObject, V1Secret } from '@kubernetes/client-node';
import type { ObjectKey, ReconcileResult, Reconciler } from '../runtime/controller.js';
import type { ReconcileDeps } from './context.js';
import { MANAGED_BY_OPERATOR, OPERATOR_SECRETS_SELECTOR, SECRET_RESOURCE } from './names.js';
import { newToken } from '../../server/tokens.js';

export interface ChartSecret {
  name: string;
  /** What it is for, in log lines. */
  purpose: string;
  /** Fresh values for every key (called only when the Secret is absent). */
  values(): Record<string, string>;
}

/** The chart's Secrets as the options name them. */
export function chartSecrets(options: ReconcileDeps['options']): ChartSecret[] {
  return [
    {
      name: options.adminSecret,
      purpose: 'the first-admin credentials',
      values: () => ({ username: options.adminUsername, email: options.adminEmail, password: newToken() }),
    },
    {
      name: options.postgresSecret,
      purpose: 'the bundled PostgreSQL password',
      values: () => ({ password: newToken() }),
    },
  ];
}

function secretBody(namespace: string, secret: ChartSecret): V1Secret {
  const data = Object.fromEntries(
    Object.entries(secret.values()).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
  );
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: { name: secret.name, namespace, labels: { ...MANAGED_BY_OPERATOR } },
    data,
  };
}

/** The one key the chart's Secrets are reconciled under (not an object: all are ensured together). */
export const CHART_SECRETS_KEY = 'chart-secrets';

/**
 * One fixed key per operator: the runtime enqueues it when this replica starts leading (initialKeys), since
 * an absent Secret produces no watch event, and again whenever one of the chart's Secrets changes or is
 * deleted (keysOf); other Secrets map to no key. Each reconcile ensures all of them.
 */
export class ChartSecretsReconciler implements Reconciler {
  readonly kind = 'ChartSecret';
  readonly resource = SECRET_RESOURCE;
  readonly labelSelector = OPERATOR_SECRETS_SELECTOR;

  constructor(
    private readonly deps: ReconcileDeps,
    private readonly namespace: string | undefined,
  ) {}

  private get key(): ObjectKey[] {
    return this.namespace ? [{ namespace: this.namespace, name: CHART_SECRETS_KEY }] : [];
  }

  initialKeys(): ObjectKey[] {
    return this.key;
  }

  keysOf(secret: KubernetesObject): ObjectKey[] {
    if (secret.metadata?.namespace !== this.namespace) return [];
    const names = chartSecrets(this.deps.options).map((each) => each.name);
    return names.includes(secret.metadata?.name ?? '') ? this.key : [];
  }

  async reconcile(key: ObjectKey): Promise<ReconcileResult | undefined> {
    if (!this.namespace || key.namespace !== this.namespace || key.name !== CHART_SECRETS_KEY) return;
    await this.ensureAll();
  }

  /**
   * Creates each chart Secret the cache does not show. An existing one is never written: one the operator
   * did not create is not cached (not labelled), and its create answers 409, which leaves it as it is.
   */
  async ensureAll(): Promise<void> {
    const namespace = this.namespace;
    if (!namespace) return;
    for (const secret of chartSecrets(this.deps.options)) {
      if (this.deps.cache.get<V1Secret & KubernetesObject>(SECRET_RESOURCE, { namespace, name: secret.name })) continue;
      const created = await this.deps.cluster.createSecret(secretBody(namespace, secret));
      if (created === 'created')
        this.deps.log.info({ secret: `${namespace}/${secret.name}` }, `created ${secret.purpose}`);
    }
  }
}
