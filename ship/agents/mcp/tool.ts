// One MCP tool as a small record: name, one-line description of when to call it, input and
// output shapes, annotations and a handler. The handler returns the structured result and a one-line
// summary; a thrown error becomes an MCP tool error (`isError: true`) carrying its message.
import type * as z from 'zod';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { BridgeCredentials } from '../bridge-credentials.js';
import type { WorkspaceService } from '../../workspaces/service.js';

/** What every handler of one request's server is bound to: its workspace, never a selector from the caller. */
export interface ToolContext {
  repo: string;
  name: string;
  service: WorkspaceService;
  credentials: BridgeCredentials;
  /** Timeout of each call to the bridge's /repos routes. */
  bridgeTimeoutMs: number;
}

export interface ToolOutcome<O> {
  result: O;
  summary: string;
}

export interface McpTool<I extends z.ZodRawShape = z.ZodRawShape, O extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  run(args: z.infer<z.ZodObject<I>>, context: ToolContext): Promise<ToolOutcome<z.infer<z.ZodObject<O>>>>;
}

/** Erases a tool's own shapes so tools of different shapes share one list. */
export type AnyTool = McpTool<z.ZodRawShape, z.ZodRawShape>;

export function defineTool<I extends z.ZodRawShape, O extends z.ZodRawShape>(tool: McpTool<I, O>): AnyTool {
  return tool as unknown as AnyTool;
}
