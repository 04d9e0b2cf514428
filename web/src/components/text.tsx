// Untrusted text (names, branches, descriptions, messages), rendered as text only: React escapes it, and
// invisible format/control characters are drawn as visible `<U+…>` marks (lib/visible-text.ts).
import { visibleSegments } from '../lib/visible-text.js';

export function Text({ value, className }: { value: string; className?: string }) {
  return (
    <span className={className}>
      {visibleSegments(value).map((segment, index) =>
        segment.invisible ? (
          <span key={index} className="invisible-char" title="invisible character">
            {segment.text}
          </span>
        ) : (
          segment.text
        ),
      )}
    </span>
  );
}
