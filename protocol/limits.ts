// Wire limits shared by servers and clients (spec "Limits").
export const EVENT_PENDING_BUFFER_LIMIT = 256 * 1024;
export const WEBSOCKET_MAX_PAYLOAD = 1_572_992;
export const CPU_SAMPLE_WINDOW_MS = 100;
export const MCP_TOKEN_BYTES = 32;
