// The terminal's colours in the GUI's two schemes (web/src/styles.css): the page's own background and text,
// and for light, an ANSI palette dark enough to read on white (xterm.js's defaults are made for a dark
// background: its white and yellow vanish on a light one). Followed live: the scheme may change while a
// terminal is open.
import type { ITheme, Terminal } from '@xterm/xterm';

const DARK: ITheme = {
  background: '#15171a',
  foreground: '#e6e7ea',
  cursor: '#e6e7ea',
  cursorAccent: '#15171a',
  selectionBackground: '#3a4a66',
};

const LIGHT: ITheme = {
  background: '#ffffff',
  foreground: '#1d2025',
  cursor: '#1d2025',
  cursorAccent: '#ffffff',
  selectionBackground: '#b6cdf5',
  black: '#1d2025',
  red: '#b3261e',
  green: '#1a7f37',
  yellow: '#7a5800',
  blue: '#2459c4',
  magenta: '#8e44ad',
  cyan: '#0f6f78',
  white: '#6a7079',
  brightBlack: '#55595f',
  brightRed: '#d1352b',
  brightGreen: '#23913f',
  brightYellow: '#946c00',
  brightBlue: '#3b6fd8',
  brightMagenta: '#a05bc0',
  brightCyan: '#16838d',
  brightWhite: '#8b9099',
};

const DARK_QUERY = '(prefers-color-scheme: dark)';

/** Gives `terminal` the scheme's colours now and whenever the scheme changes; returns the unsubscribe. */
export function followColorScheme(terminal: Terminal, window: Window): () => void {
  const media = window.matchMedia(DARK_QUERY);
  const apply = () => {
    terminal.options.theme = media.matches ? DARK : LIGHT;
  };
  apply();
  media.addEventListener('change', apply);
  return () => media.removeEventListener('change', apply);
}
