// The GUI's frame: the sign-in gate while signed out (state/session.tsx), else the signed-in session's data
// layer (one cache, one live stream: state/query-client.ts, state/live-fleet.tsx), the navigation with the
// inbox's count (admin-only pages hidden from members), who is signed in, sign out, and the page for the
// current route, and the keyboard layer (command palette, shortcuts overlay: keyboard/).
import { QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { Link } from './components/link.js';
import { PageTitle } from './components/page-title.js';
import { Text } from './components/text.js';
import { useRoute } from './hooks/use-route.js';
import type { Route } from './lib/routes.js';
import { useAttention } from './hooks/use-attention.js';
import { useAttentionSignals } from './hooks/use-attention-signals.js';
import { useKeyboardLayer } from './keyboard/keyboard-layer.js';
import { AccountPage } from './pages/account.js';
import { ArmoryPage } from './pages/armory.js';
import { InboxPage } from './pages/inbox.js';
import { NewWorkspacePage } from './pages/new-workspace.js';
import { ReposPage } from './pages/repos.js';
import { ResourcesPage } from './pages/resources.js';
import { ShipsPage } from './pages/ships.js';
import { SignIn } from './pages/sign-in.js';
import { UsersPage } from './pages/users.js';
import { WorkspaceDetailPage } from './pages/workspace-detail.js';
import { WorkspacesPage } from './pages/workspaces.js';
import { LiveFleetProvider } from './state/live-fleet.js';
import { newQueryClient } from './state/query-client.js';
import { useSession, useViewer } from './state/session.js';

// xterm.js is most of the bundle: loaded when a terminal is first opened.
const TerminalPage = lazy(() =>
  import('./pages/terminal-page.js').then((module) => ({ default: module.TerminalPage })),
);

export function App() {
  const { state, retry } = useSession();
  switch (state.status) {
    case 'loading':
      return <p className="muted center">Loading…</p>;
    case 'unreachable':
      return (
        <main className="gate">
          <h1>svc</h1>
          <p className="error" role="alert">
            The bridge did not answer: <Text value={state.message} />
          </p>
          <button type="button" onClick={retry}>
            Retry
          </button>
        </main>
      );
    case 'signed-out':
      return <SignIn notice={state.notice} />;
    case 'signed-in':
      return <Shell />;
  }
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'inbox':
      return <InboxPage />;
    case 'workspaces':
      return <WorkspacesPage />;
    case 'new-workspace':
      return <NewWorkspacePage />;
    case 'workspace':
      return <WorkspaceDetailPage key={`${route.repo}/${route.name}`} repo={route.repo} name={route.name} />;
    case 'terminal':
      return (
        <>
          {/* The terminal page's one <h1> (issue #31), kept off the screen the terminal needs. */}
          <h1 className="visually-hidden" tabIndex={-1}>
            Terminal of <Text value={`${route.repo}/${route.name}`} />
          </h1>
          <Suspense fallback={<p className="muted">Loading the terminal…</p>}>
            <TerminalPage key={`${route.repo}/${route.name}`} repo={route.repo} name={route.name} />
          </Suspense>
        </>
      );
    case 'ships':
      return <ShipsPage />;
    case 'repos':
      return <ReposPage />;
    case 'resources':
      return <ResourcesPage />;
    case 'armory':
      return <ArmoryPage />;
    case 'users':
      return <UsersPage />;
    case 'account':
      return <AccountPage />;
    case 'not-found':
      return (
        <>
          <PageTitle>Not found</PageTitle>
          <p>There is no such page.</p>
        </>
      );
  }
}

/** One cache and one live stream per signed-in session: signing out drops both. */
function Shell() {
  const [queries] = useState(newQueryClient);
  return (
    <QueryClientProvider client={queries}>
      <LiveFleetProvider>
        <Frame />
      </LiveFleetProvider>
    </QueryClientProvider>
  );
}

function Frame() {
  const route = useRoute();
  const { signOut } = useSession();
  const { user, isAdmin, authRequired } = useViewer();
  const { entries } = useAttention();
  useAttentionSignals(entries.length);
  const keyboard = useKeyboardLayer();
  return (
    <div className="shell">
      <nav aria-label="main">
        <span className="brand">svc</span>
        <Link to={{ page: 'inbox' }}>
          Inbox
          {entries.length > 0 && (
            // biome-ignore lint/a11y/useAriaPropsSupportedByRole: part of the link's name (Inbox 3 need you)
            <span className="count" data-testid="inbox-count" aria-label={`${entries.length} need you`}>
              {entries.length}
            </span>
          )}
        </Link>
        <Link to={{ page: 'workspaces' }}>Workspaces</Link>
        <Link to={{ page: 'ships' }}>Ships</Link>
        <Link to={{ page: 'repos' }}>Repos</Link>
        <Link to={{ page: 'resources' }}>Resources</Link>
        <Link to={{ page: 'armory' }}>Armory</Link>
        {isAdmin && <Link to={{ page: 'users' }}>Users</Link>}
        <span className="spacer" />
        <button
          type="button"
          onClick={keyboard.openPalette}
          aria-keyshortcuts="Control+K Meta+K"
          title="Command palette (Ctrl+K); ? lists the shortcuts"
        >
          Commands <kbd>Ctrl K</kbd>
        </button>
        <Link to={{ page: 'account' }}>
          <span data-testid="whoami">{user ? <Text value={user.username} /> : null}</span>
          {user ? ` (${user.role})` : ''}
        </Link>
        {authRequired ? (
          <button type="button" onClick={() => void signOut()}>
            Sign out
          </button>
        ) : (
          <span className="badge insecure" title="the bridge runs with --insecure-no-auth">
            no authentication
          </span>
        )}
      </nav>
      <main>
        <Page route={route} />
      </main>
      {keyboard.layer}
    </div>
  );
}
