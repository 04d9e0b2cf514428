// Makes invisible characters visible (security notes H14, H21): format characters (Unicode category Cf:
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

/** The text cut into plain runs and marks, in order; joining every `text` gives `visibleText`. */
export function visibleSegments(text: string): TextSegment[] {
  const segments: TextSegment[] = [];
  let plain = '';
  for (const character of text) {
    if (INVISIBLE.test(character)) {
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
