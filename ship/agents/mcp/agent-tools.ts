// The agent status tools: the same service methods the HTTP agent routes call (ship/routes/agent.ts), so the
// status, its errors and its `workspace.agent_status_changed` events are one implementation.
import type { AgentStatus } from '../../../protocol/index.js';
import { agentInitInput, agentStatusGetOutput, agentStatusInput, agentStatusShape } from './schemas.js';
import { defineTool, type AnyTool } from './tool.js';

const line = (status: AgentStatus) => `${status.state}: ${status.description.split('\n')[0]}`;

export const agentTools: AnyTool[] = [
  defineTool({
    name: 'agent_init',
    description:
      'Call once when your session starts, before any agent_status: registers your model, provider and harness and sets the status to idle.',
    input: agentInitInput,
    output: agentStatusShape,
    annotations: {
      title: 'Start agent status',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    },
    async run(args, context) {
      const status = await context.service.agentInit(context.repo, context.name, args);
      return { result: status, summary: `Agent initialized (${status.harness}, ${status.model}): ${line(status)}` };
    },
  }),
  defineTool({
    name: 'agent_status',
    description:
      'Call at every phase change (planning, building, verifying), with state awaiting before you ask a human anything, and idle when you are done.',
    input: agentStatusInput,
    output: agentStatusShape,
    annotations: {
      title: 'Report agent status',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    async run(args, context) {
      const status = await context.service.agentUpdate(context.repo, context.name, args);
      return { result: status, summary: `Status set to ${line(status)}` };
    },
  }),
  defineTool({
    name: 'agent_status_get',
    description: 'Call to read the status last reported for this workspace (null before agent_init).',
    input: {},
    output: agentStatusGetOutput,
    annotations: { title: 'Read agent status', readOnlyHint: true, openWorldHint: false },
    async run(_args, context) {
      const agent = await context.service.agentStatus(context.repo, context.name);
      return { result: { agent }, summary: agent ? `Status: ${line(agent)}` : 'No status yet: call agent_init first.' };
    },
  }),
];
