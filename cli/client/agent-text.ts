// How `svc client ls` and `status` show an agent status: the state word, "no activity for N min" when the
// ship marked it stale, and an awaiting agent's question (its description), truncated for a table cell.
import type { AgentStatus } from '../../protocol/index.js';
import type { StyledCell } from '../output.js';
import { state, stateText } from '../output.js';

/** "no activity for N min" (seconds under a minute), from the ship's `quietSince`; null when not stale. */
export function staleText(agent: AgentStatus, now = Date.now()): string | null {
  if (!agent.stale) return null;
  const since = agent.quietSince ? Date.parse(agent.quietSince) : NaN;
  if (!Number.isFinite(since)) return 'no activity';
  const quiet = Math.max(0, now - since);
  return quiet < 60_000
    ? `no activity for ${Math.floor(quiet / 1000)} s`
    : `no activity for ${Math.floor(quiet / 60_000)} min`;
}

const QUESTION_CELL_MAX = 60;

function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * The AGENT cell of `ls`: the state, then what a human should know at a glance — "no activity for N min"
 * for a stale status, the question of an awaiting one (unless the wide table shows the description).
 */
export function agentCell(
  agent: AgentStatus | null,
  options: { wide?: boolean; now?: number } = {},
): StyledCell | string {
  if (!agent) return '-';
  const notes: string[] = [];
  const stale = staleText(agent, options.now);
  if (stale) notes.push(stale);
  if (agent.state === 'awaiting' && !options.wide && agent.description.trim() !== '')
    notes.push(`“${clip(agent.description, QUESTION_CELL_MAX)}”`);
  const word = state(agent.state);
  if (notes.length === 0) return word;
  const suffix = ` (${notes.join('; ')})`;
  return typeof word === 'string' ? word + suffix : { ...word, text: word.text + suffix };
}

/** The agent line of `status`: state, staleness, description (an awaiting agent's question), model. */
export function agentLine(agent: AgentStatus | null, now = Date.now()): string {
  if (!agent) return '-';
  const stale = staleText(agent, now);
  const asks = agent.state === 'awaiting' ? 'asks: ' : '';
  return `${stateText(agent.state)}${stale ? ` (${stale})` : ''} ${asks}${agent.description} (${agent.provider}/${agent.model}, ${agent.harness})`;
}
