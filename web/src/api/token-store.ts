// Where the GUI keeps its session token: browser local storage under `svc.bridge.token` (spec "Storage
// requirements for secrets"). Nothing else of the session is stored.

export const TOKEN_KEY = 'svc.bridge.token';

export interface TokenStore {
  get(): string | null;
  set(token: string): void;
  clear(): void;
}

export function localTokenStore(storage: Storage = window.localStorage): TokenStore {
  return {
    get: () => storage.getItem(TOKEN_KEY),
    set: (token) => storage.setItem(TOKEN_KEY, token),
    clear: () => storage.removeItem(TOKEN_KEY),
  };
}
