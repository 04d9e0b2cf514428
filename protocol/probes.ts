// Health probes of ship and bridge (issue #20): `GET /healthz` answers while the process serves, `GET /readyz`
// runs the server's readiness checks in order and names the first that fails. Both are open routes with no
// data in them (docs/DECISIONS.md "Probes and metrics"). The body schemas, the check names and the runner
// live here so both servers (and a client reading a probe) share them; browser-safe.
import { Type, type Static } from 'typebox';

export const HEALTHZ_PATH = '/healthz';
export const READYZ_PATH = '/readyz';
export const METRICS_PATH = '/metrics';

/**
 * What a readiness check looks at: the bridge's store (it answers a query) and its migrations (every one
 * this build knows is recorded), the ship's tmux server (it answers), fleet directory (a file can be
 * written in it) and fleet volume (no fuller than `--max-disk-fill`).
 */
export const ReadinessCheckName = Type.Union([
  Type.Literal('store'),
  Type.Literal('migrations'),
  Type.Literal('tmux'),
  Type.Literal('fleet-directory'),
  Type.Literal('fleet-volume'),
]);
export type ReadinessCheckName = Static<typeof ReadinessCheckName>;

export const ProbeOk = Type.Object({ ok: Type.Literal(true) });
export type ProbeOk = Static<typeof ProbeOk>;

/** A 503 from `/readyz`: the first check that failed and why, in the words of the failure. */
export const ProbeFailure = Type.Object({
  ok: Type.Literal(false),
  failing: ReadinessCheckName,
  error: Type.String(),
});
export type ProbeFailure = Static<typeof ProbeFailure>;

export type ProbeResult = ProbeOk | ProbeFailure;

/**
 * How long one check may take before it counts as failed: under the kubelet's default probe timeout of the
 * charts we know (1 s is Kubernetes' default, the chart sets more), so a hung store fails the probe with a
 * name instead of a probe timeout.
 */
export const READINESS_CHECK_TIMEOUT_MS = 2_000;

export interface ReadinessCheck {
  name: ReadinessCheckName;
  /** Resolves when the check passes; rejects with what is wrong. */
  run(): Promise<void>;
}

/** Runs `checks` in order; the first that fails (or takes longer than `timeoutMs`) is the answer. */
export async function checkReadiness(
  checks: readonly ReadinessCheck[],
  timeoutMs = READINESS_CHECK_TIMEOUT_MS,
): Promise<ProbeResult> {
  for (const check of checks) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([check.run(), late]);
    } catch (error) {
      return { ok: false, failing: check.name, error: error instanceof Error ? error.message : String(error) };
    } finally {
      clearTimeout(timer);
    }
  }
  return { ok: true };
}

/**
 * One readiness run at a time: probes arriving while one runs share its answer, so a burst of probes (or a
 * slow store) never stacks up checks.
 */
export function singleFlightReadiness(
  checks: readonly ReadinessCheck[],
  timeoutMs?: number,
): () => Promise<ProbeResult> {
  let running: Promise<ProbeResult> | null = null;
  return () => {
    running ??= checkReadiness(checks, timeoutMs).finally(() => {
      running = null;
    });
    return running;
  };
}
