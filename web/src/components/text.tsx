// Untrusted text (names, branches, descriptions, messages), rendered as text only: React escapes it, and
// invisible format/control characters are drawn as visible `<U+…>` marks (lib/visible-text.ts); `multiline`
// text (an agent's question) keeps its line breaks and tabs.
import { visibleSegments } from '../lib/visible-text.js';

export function Text({
  value,
  className,
  multiline = false,
}: {
  value: string;
  className?: string;
  multiline?: boolean;
}) {
  return (
    <span className={className}>
      {visibleSegments(value, multiline).map((segment, index) =>
        segment.invisible ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: segments of one string, rebuilt in order from it
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
