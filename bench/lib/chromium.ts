// Debian's Chromium driven by playwright-core, for the GUI benchmark (bench/gui.ts) and the GUI tests
// (test/helpers/browser.ts re-exports it): headless, with the flags a closed network needs (no QUIC, no
// background networking, component updates or sync: without them Chromium floods refused connections) and a
// fresh, empty profile per launch (playwright's own temporary user-data-dir, removed on close).
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.SVC_CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS, timeout: 60_000 });
}
