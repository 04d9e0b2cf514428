// How a workspace's agent and ephemeral cleanup read in the list and the detail view: state, description
// (text only), the agent's link and the pull request's (http(s) only), stale marks, blocked reasons.
import type { AgentStatus } from '../../../protocol/agent.js';
import type { EphemeralWorkspace } from '../../../protocol/bridge.js';
import { ExternalLink } from './external-link.js';
import { Text } from './text.js';

export function AgentFacts({ agent }: { agent: AgentStatus | null }) {
  if (!agent) return <span className="muted">no agent</span>;
  return (
    <span className="agent">
      <span className={`badge agent-${agent.state}`}>{agent.state}</span>
      {agent.stale && <span className="badge stale">stale</span>}{' '}
      <Text className="description" value={agent.description} />
      {agent.link && (
        <>
          {' '}
          <ExternalLink url={agent.link} label="link" />
        </>
      )}
    </span>
  );
}

export function EphemeralFacts({ ephemeral }: { ephemeral: EphemeralWorkspace | null }) {
  if (!ephemeral) return <span className="muted">—</span>;
  return (
    <span className="ephemeral">
      issue #{ephemeral.issueNumber}, <span className={`badge cleanup-${ephemeral.cleanup}`}>{ephemeral.cleanup}</span>
      {ephemeral.blockedReason && (
        <>
          {' '}
          <Text className="blocked-reason" value={ephemeral.blockedReason} />
        </>
      )}
      {ephemeral.pullRequest && (
        <>
          {' '}
          <span className="pull-request">
            PR <ExternalLink url={ephemeral.pullRequest.url} label={`#${ephemeral.pullRequest.number}`} /> (
            {ephemeral.pullRequest.state})
          </span>
        </>
      )}
    </span>
  );
}
