// The app's keyboard layer, mounted once in the signed-in frame: the global keys (use-global-shortcuts.ts),
// the command palette and the shortcuts overlay (one open at a time), and the navigation's button that
// opens the palette for those who do not know the key.
import { useMemo, useState } from 'react';
import { CommandPalette } from './command-palette.js';
import { ShortcutsOverlay } from './shortcuts-overlay.js';
import { useGlobalShortcuts } from './use-global-shortcuts.js';

type Open = 'none' | 'palette' | 'shortcuts';

export function useKeyboardLayer() {
  const [open, setOpen] = useState<Open>('none');
  const handlers = useMemo(
    () => ({
      palette: () => setOpen((current) => (current === 'palette' ? 'none' : 'palette')),
      shortcuts: () => setOpen('shortcuts'),
    }),
    [],
  );
  useGlobalShortcuts(handlers);
  const close = () => setOpen('none');
  const layer =
    open === 'palette' ? (
      <CommandPalette key="palette" onClose={close} onShortcuts={() => setOpen('shortcuts')} />
    ) : open === 'shortcuts' ? (
      <ShortcutsOverlay key="shortcuts" onClose={close} />
    ) : null;
  return { layer, openPalette: handlers.palette };
}
