// The one `/events` connection of the whole GUI (issue #28), shared by every page through React context: the
// live workspace list (state/workspace-list.ts) and the agent histories behind the inbox (state/attention.ts),
// fed by the same frames, completed after each `sync` by what the bridge remembers of the agents' past
// (GET /workspaces/agent-history). A `sync` replaces both; on close it reconnects with a fresh ticket, backing off to
// 5 s; a 401 while minting the ticket ends it (the client has already returned to the sign-in gate). Each
// change also invalidates that workspace's cached status and diff (state/query-client.ts), so every page
// showing them asks again; listeners hear each frame with the list it applied to (notifications).
import { useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { BridgeWorkspaceEvent } from '../../../protocol/bridge.js';
import { ApiError, errorText } from '../api/api-error.js';
import { trackHistory, withBridgeHistory, type AgentHistories } from './attention.js';
import { queryKeys } from './query-client.js';
import { useApi } from './session.js';
import { applyEvent, EMPTY_LIST, parseEvent, type WorkspaceList } from './workspace-list.js';
import { Backoff, GUI_RECONNECT } from '../../../protocol/backoff.js';

export interface LiveFleet {
  list: WorkspaceList;
  histories: AgentHistories;
  connected: boolean;
  /** Why the stream is down, while it is. */
  problem: string | null;
  /** Calls `listener` with each frame and the list as it was before it; returns the unsubscribe. */
  onFrame(listener: FrameListener): () => void;
}

export type FrameListener = (event: BridgeWorkspaceEvent, before: WorkspaceList) => void;

interface Fleet {
  list: WorkspaceList;
  histories: AgentHistories;
}

const LiveFleetContext = createContext<LiveFleet | null>(null);

export function LiveFleetProvider({ children }: { children: ReactNode }) {
  const api = useApi();
  const queries = useQueryClient();
  const [fleet, setFleet] = useState<Fleet>({ list: EMPTY_LIST, histories: new Map() });
  const [connected, setConnected] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const listeners = useRef(new Set<FrameListener>());
  // The list frames apply to, ahead of React's render: a burst of frames applies each to the one before.
  const current = useRef<Fleet>(fleet);

  useEffect(() => {
    let stopped = false;
    let socket: WebSocket | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const backoff = new Backoff(GUI_RECONNECT);
    // Frames apply at once (listeners and invalidations see each in order); React renders what they made
    // once per animation frame, so a burst of changes costs one render and one layout of the page, not one
    // each (bench/RESULTS.md, "GUI"). A hidden tab has no animation frames: a timer renders there.
    let renderPending = false;
    const scheduleRender = () => {
      if (renderPending) return;
      renderPending = true;
      const render = () => {
        renderPending = false;
        if (!stopped) setFleet(current.current);
      };
      if (document.hidden) setTimeout(render, 0);
      else requestAnimationFrame(render);
    };
    const apply = (event: BridgeWorkspaceEvent) => {
      const before = current.current;
      current.current = { list: applyEvent(before.list, event), histories: trackHistory(before.histories, event) };
      scheduleRender();
      // A sync follows a ship's registration, removal or reconnection: the ship list may have changed, and
      // the bridge may know since when the agents this page sees for the first time have been as they are.
      if (event.type === 'sync') {
        void queries.invalidateQueries({ queryKey: queryKeys.ships });
        api.agentHistory().then(
          (remembered) => {
            if (stopped) return;
            const histories = withBridgeHistory(current.current.histories, remembered.workspaces);
            if (histories === current.current.histories) return;
            current.current = { ...current.current, histories };
            scheduleRender();
          },
          () => undefined, // An older bridge, or a blip: the page's own view stands.
        );
      } else
        void queries.invalidateQueries({
          queryKey: queryKeys.workspace(event.workspace.repoName, event.workspace.name),
        });
      for (const listener of listeners.current) listener(event, before.list);
    };
    const retry = () => {
      if (stopped) return;
      timer = setTimeout(connect, backoff.next());
    };
    const connect = () => {
      api.openSocket('/events').then(
        (opened) => {
          if (stopped) return opened.close();
          socket = opened;
          opened.addEventListener('open', () => {
            backoff.reset();
            setConnected(true);
            setProblem(null);
          });
          opened.addEventListener('message', (message) => {
            const event = parseEvent(message.data);
            if (event) apply(event);
          });
          opened.addEventListener('close', (close) => {
            setConnected(false);
            if (!stopped)
              setProblem(
                `live updates interrupted (${close.code}${close.reason ? ` ${close.reason}` : ''}); reconnecting`,
              );
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
  }, [api, queries]);

  const onFrame = useCallback((listener: FrameListener) => {
    listeners.current.add(listener);
    return () => void listeners.current.delete(listener);
  }, []);
  const value = useMemo<LiveFleet>(
    () => ({ ...fleet, connected, problem, onFrame }),
    [fleet, connected, problem, onFrame],
  );
  return <LiveFleetContext.Provider value={value}>{children}</LiveFleetContext.Provider>;
}

export function useLiveFleet(): LiveFleet {
  const fleet = useContext(LiveFleetContext);
  if (!fleet) throw new Error('useLiveFleet outside LiveFleetProvider');
  return fleet;
}
