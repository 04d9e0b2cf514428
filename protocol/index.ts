// The protocol: every shape components exchange, as TypeBox schemas with their derived types.
// Browser-safe: nothing here imports node-only modules.
export * from './identifier.js';
export * from './workspace-path.js';
export * from './agent.js';
export * from './agent-history.js';
export * from './workspace.js';
export * from './events.js';
export * from './resources.js';
export * from './config.js';
export * from './errors.js';
export * from './thrown.js';
export * from './limits.js';
export * from './redact.js';
export * from './clone-url.js';
export * from './terminal.js';
export * from './terminal-screen.js';
export * from './terminal-renderer.js';
export * from './url-credentials.js';
export * from './bridge.js';
export * from './request-origin.js';
export * from './auth.js';
export * from './launch-config.js';
export * from './armory.js';
export * from './heartbeat.js';
export * from './http-limits.js';
export * from './probes.js';
export * from './drain-report.js';
