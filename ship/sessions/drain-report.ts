// What a session holder does on SIGTERM before it ends the sessions (issue #30, docs/DECISIONS.md "Drain
// report"; charts/svc README "Sessions that outlive the ship"): scan the fleet for unpushed work
// (ship/git/unpushed-work.ts) and, when it found some, report it to the operator (POST /drain-report, the
// pod's projected token as bearer), which puts an Event on the node's Ship and tells the bridge. Bounded:
// the scan gets most of `timeoutMs`, the delivery the rest; a report not delivered in time is written to the
// holder's own log instead, one warn line per workspace, and the drain goes on. The token is read from its
// file at that moment (the kubelet renews it) and is never logged; nothing follows a redirect. With a session
// user (`--session-user`) the workspaces are that user's, and git refuses another owner's repository
// ("dubious ownership"), so the scan runs git as that user, as the ship does (docs/security.md H24).
import type { Logger } from 'pino';
import { describeFindings, redactUrlCredentials, type DrainReport } from '../../protocol/index.js';
import { GitRunner } from '../git/runner.js';
import { scanFleet, type GitRun } from '../git/unpushed-work.js';
import type { SessionUser } from './session-user.js';
import { postWithPodToken } from '../tokens/pod-token-post.js';

export interface DrainReportOptions {
  fleetDirectory: string;
  /** The operator's POST /drain-report URL (undefined: the holder's log only). */
  reportTo?: string;
  /** The file holding the pod's projected service-account token. */
  credentialFile?: string;
  /** Scan and delivery together end within this. */
  timeoutMs: number;
  logger: Logger;
  /** The user the sessions, so the workspaces, belong to (`--session-user`); none: the holder's own. */
  sessionUser?: SessionUser;
  git?: GitRun;
  fetch?: typeof fetch;
}

/** The share of the time the scan may take; the delivery gets the rest. */
const SCAN_SHARE = 0.6;

export async function reportDrain(options: DrainReportOptions): Promise<DrainReport> {
  const { logger } = options;
  const started = Date.now();
  // Every cwd of the scan is a workspace (`<fleet>/<repo>/<name>`, never the ship's state directory).
  const user = options.sessionUser;
  const git = options.git ?? new GitRunner({ allowLocalRepos: false }, undefined, undefined, () => user);
  const report = await scanFleet(git, options.fleetDirectory, started + options.timeoutMs * SCAN_SHARE);
  const deliveredTo =
    report.workspaces.length === 0
      ? 'nobody: nothing unpushed'
      : await deliver(options, report, started + options.timeoutMs);
  if (deliveredTo !== 'the operator') {
    for (const found of report.workspaces) {
      logger.warn(
        { workspace: `${found.repo}/${found.name}`, findings: found },
        `drain: workspace ${found.repo}/${found.name} has unpushed work: ${describeFindings(found)}`,
      );
    }
  }
  logger.info(
    { scanned: report.scanned, unpushed: report.workspaces.length, reported: deliveredTo, ms: Date.now() - started },
    'drain: workspaces scanned for unpushed work',
  );
  return report;
}

/** Sends the report; says where it went, or why it did not (the caller then logs it). */
async function deliver(options: DrainReportOptions, report: DrainReport, deadline: number): Promise<string> {
  if (!options.reportTo || !options.credentialFile) return "the holder's log: no --drain-report-to";
  try {
    const response = await postWithPodToken({
      url: options.reportTo,
      credentialFile: options.credentialFile,
      json: report,
      timeoutMs: Math.max(1, deadline - Date.now()),
      fetch: options.fetch,
    });
    const text = await response.text();
    if (response.ok) return 'the operator';
    return `the holder's log: the operator answered ${response.status} ${redactUrlCredentials(text.slice(0, 200))}`;
  } catch (error) {
    const failure = error as Error & { cause?: { code?: string } };
    return `the holder's log: the operator could not be reached (${failure.name === 'TimeoutError' ? 'timed out' : (failure.cause?.code ?? failure.message)})`;
  }
}
