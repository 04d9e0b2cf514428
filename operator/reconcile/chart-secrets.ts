// The Secrets the Helm chart references and nobody else creates (issue #19): the shared ship token pair the
// ship DaemonSet and its managed Ships use, the first-admin credentials (the bridge's SVC_BRIDGE_ADMIN_* and
// the operator's own login), and the bundled PostgreSQL's password. Each is created when absent, with CSPRNG
// values, and never written again — an upgrade, a restart or a second replica finds it and leaves it. A
// user who pre-creates one (or deletes one to get fresh values) decides; a deleted admin Secret is recreated
// with a new password the already-initialised bridge does not know, which the Ships then report as
// BridgeUnauthorized. Names and the generated admin username/email are options (defaults in names.ts).
import type { KubernetesObject, V1Secret } from '@kubernetes/client-node';
import type { ObjectKey, ReconcileResult, Reconciler } from '../runtime/controller.js';
import type { ReconcileDeps } from './context.js';
import { MANAGED_BY_OPERATOR, SECRET_RESOURCE } from './names.js';
import { generateToken } from './tokens.js';
import { TOKEN_KEYS } from '../resources/index.js';

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
      name: options.shipTokenSecret,
      purpose: 'the shared ship token pair',
      values: () => ({ [TOKEN_KEYS.shipToken]: generateToken(), [TOKEN_KEYS.bridgeToken]: generateToken() }),
    },
    {
      name: options.adminSecret,
      purpose: 'the first-admin credentials',
      values: () => ({ username: options.adminUsername, email: options.adminEmail, password: generateToken() }),
    },
    {
      name: options.postgresSecret,
      purpose: 'the bundled PostgreSQL password',
      values: () => ({ password: generateToken() }),
    },
  ];
}

function secretBody(namespace: string, secret: ChartSecret): V1Secret {
  const data = Object.fromEntries(Object.entries(secret.values()).map(([key, value]) => [key, Buffer.from(value).toString('base64')]));
  return { apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: { name: secret.name, namespace, labels: { ...MANAGED_BY_OPERATOR } }, data };
}

/**
 * Keyed by Secret: a key naming one of the chart's Secrets creates it if absent; any other key is ignored.
 * `initialKeys()` are the keys to enqueue once at start (an absent Secret produces no watch event).
 */
export class ChartSecretsReconciler implements Reconciler {
  readonly kind = 'ChartSecret';
  readonly resource = SECRET_RESOURCE;

  constructor(private readonly deps: ReconcileDeps, private readonly namespace: string | undefined) {}

  initialKeys(): ObjectKey[] {
    if (!this.namespace) return [];
    return chartSecrets(this.deps.options).map((secret) => ({ namespace: this.namespace!, name: secret.name }));
  }

  async reconcile(key: ObjectKey): Promise<ReconcileResult | void> {
    if (!this.namespace || key.namespace !== this.namespace) return;
    const secret = chartSecrets(this.deps.options).find((candidate) => candidate.name === key.name);
    if (!secret) return;
    if (this.deps.cache.get<V1Secret & KubernetesObject>(SECRET_RESOURCE, key)) return;
    const created = await this.deps.cluster.createSecret(secretBody(key.namespace, secret));
    if (created === 'created') this.deps.log.info({ secret: `${key.namespace}/${key.name}` }, `created ${secret.purpose}`);
  }

  /** Every chart Secret ensured at once (start-up, or tests without the runtime). */
  async ensureAll(): Promise<void> {
    for (const key of this.initialKeys()) await this.reconcile(key);
  }
}
