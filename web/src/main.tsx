// Entry point of the GUI bundle: mounts the app under the session provider.
import { createRoot } from 'react-dom/client';
import { App } from './app.js';
import { SessionProvider } from './state/session.js';
import './styles.css';

createRoot(document.getElementById('root')!).render(
  <SessionProvider>
    <App />
  </SessionProvider>,
);
