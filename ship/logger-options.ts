// How the ship's processes (the ship and its session holder) log: the component `ship`, the authorization
// header redacted wherever it appears, each line written at once (server/logger.ts).
import type { LoggerOptions } from '../server/logger.js';

export const SHIP_LOGGER: LoggerOptions = {
  component: 'ship',
  redact: ['req.headers.authorization', 'headers.authorization'],
  batched: false,
};
