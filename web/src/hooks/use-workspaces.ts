// The live workspace list: the bridge's `/events` socket fed into the pure reducer (state/workspace-list.ts).
// On close it reconnects with a fresh ticket (backing off to 5 s) and the new `sync` replaces whatever was
// shown; a 401 while minting the ticket ends it (the client has already returned to the sign-in gate).
import { useEffect, useReducer, useState } from 'react';
import type { BridgeWorkspaceEvent } from '../../../protocol/bridge.js';
import { ApiError, errorText } from '../api/api-error.js';
import { useApi } from '../state/session.js';
import { applyEvent, EMPTY_LIST, parseEvent, type WorkspaceList } from '../state/workspace-list.js';

export interface LiveWorkspaces {
  list: WorkspaceList;
  connected: boolean;
  /** Why the stream is down, while it is. */
  problem: string | null;
}

const MAX_BACKOFF_MS = 5000;

export function useWorkspaces(): LiveWorkspaces {
  const api = useApi();
  const [list, dispatch] = useReducer((state: WorkspaceList, event: BridgeWorkspaceEvent) => applyEvent(state, event), EMPTY_LIST);
  const [connected, setConnected] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    let stopped = false;
    let socket: WebSocket | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let backoff = 250;
    const retry = () => {
      if (stopped) return;
      timer = setTimeout(connect, backoff);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    };
    const connect = () => {
      api.openSocket('/events').then(
        (opened) => {
          if (stopped) return opened.close();
          socket = opened;
          opened.addEventListener('open', () => {
            backoff = 250;
            setConnected(true);
            setProblem(null);
          });
          opened.addEventListener('message', (message) => {
            const event = parseEvent(message.data);
            if (event) dispatch(event);
          });
          opened.addEventListener('close', (close) => {
            setConnected(false);
            if (!stopped) setProblem(`live updates interrupted (${close.code}${close.reason ? ` ${close.reason}` : ''}); reconnecting`);
            retry();
          });
        },
        (error: unknown) => {
          if (error instanceof ApiError && error.status === 401) return;
          setProblem(`live updates unavailable: ${errorText(error)}; retrying`);
          retry();
        },
      );
    };
    connect();
    return () => {
      stopped = true;
      clearTimeout(timer);
      socket?.close(1000, 'page closed');
    };
  }, [api]);

  return { list, connected, problem };
}
