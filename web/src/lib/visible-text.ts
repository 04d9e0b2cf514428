// Makes invisible characters visible (docs/security.md H14, H21): format characters (Unicode category Cf:
// bidi overrides such as U+202E, zero-width joiners and spaces) and control characters (Cc) in names,
// branches and agent descriptions are shown as `<U+202E>` marks instead of silently reordering or hiding
// text. Pure; the Text component renders the segments, never as HTML.

export interface TextSegment {
  text: string;
  /** A mark standing for an invisible character (drawn distinctly). */
  invisible: boolean;
}

const INVISIBLE = /[\p{Cf}\p{Cc}]/u;
const INVISIBLE_GLOBAL = /[\p{Cf}\p{Cc}]/gu;

export function markFor(character: string): string {
  return `<U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`;
}

/** Line breaks and tabs: kept as they are in multi-line text (an agent's question), marked everywhere else. */
const LAYOUT = new Set(['\n', '\t']);

/**
 * The text cut into plain runs and marks, in order; joining every `text` gives `visibleText`. `multiline`
 * keeps line breaks and tabs (shown by `white-space: pre-wrap`) and marks every other invisible character.
 */
export function visibleSegments(text: string, multiline = false): TextSegment[] {
  // Nearly every text has no invisible character: one scan of the whole string instead of a test per
  // character (the list renders some 5,000 texts on a `sync` of 1,000 workspaces; bench/RESULTS.md, "GUI").
  if (!INVISIBLE.test(text)) return text ? [{ text, invisible: false }] : [];
  const segments: TextSegment[] = [];
  let plain = '';
  for (const character of text) {
    if (INVISIBLE.test(character) && !(multiline && LAYOUT.has(character))) {
      if (plain) segments.push({ text: plain, invisible: false });
      plain = '';
      segments.push({ text: markFor(character), invisible: true });
    } else plain += character;
  }
  if (plain) segments.push({ text: plain, invisible: false });
  return segments;
}

/** The text with every invisible character replaced by its mark (for titles, options, confirmations). */
export function visibleText(text: string): string {
  return text.replace(INVISIBLE_GLOBAL, markFor);
}

/** Whether the text holds a character `visibleText` would mark. */
export function hasInvisible(text: string): boolean {
  return INVISIBLE.test(text);
}
