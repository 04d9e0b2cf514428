// The GUI's keyboard shortcuts, as the `?` overlay lists them (issue #31). One list, so the overlay cannot
// drift from the handlers: each entry names the module that handles it.
export interface Shortcut {
  keys: string[];
  what: string;
  where: string;
}

export const SHORTCUTS: readonly Shortcut[] = [
  // keyboard/use-global-shortcuts.ts
  {
    keys: ['Ctrl+K', '⌘K'],
    what: 'Open the command palette: every page and every workspace action',
    where: 'everywhere but the terminal',
  },
  {
    keys: ['Ctrl+Shift+K'],
    what: 'Open the command palette (Ctrl+K belongs to the shell there)',
    where: 'everywhere, the terminal included',
  },
  { keys: ['?'], what: 'Show these shortcuts', where: 'everywhere but a text field or the terminal' },
  { keys: ['Esc'], what: 'Close the palette, this list, a suggestion list or a confirmation', where: 'everywhere' },
  // keyboard/command-palette.tsx
  { keys: ['↑', '↓', 'Enter'], what: 'Move through the palette and run the command', where: 'command palette' },
  // pages/inbox.tsx
  { keys: ['j', 'k'], what: 'Next / previous entry', where: 'inbox' },
  { keys: ['n'], what: 'Next question', where: 'inbox' },
  // components/composer.tsx
  { keys: ['Enter'], what: 'Send the answer', where: 'answer box' },
  { keys: ['Shift+Enter'], what: 'New line in the answer', where: 'answer box' },
  // components/branch-combobox.tsx
  { keys: ['↑', '↓', 'Enter'], what: 'Choose a suggested branch', where: 'branch fields' },
  // review/diff-file.tsx
  { keys: ['Click', 'Shift+Click'], what: 'Comment on a line, or on a run of lines', where: 'review' },
];
