// A link to somewhere outside the GUI (pull requests, agent links): an anchor only for http(s) URLs
// (lib/safe-url.ts), opened without referrer or opener; anything else is shown as plain text.
import { safeHref } from '../lib/safe-url.js';
import { Text } from './text.js';

export function ExternalLink({ url, label }: { url: string; label?: string }) {
  const href = safeHref(url);
  if (!href) return <Text className="unsafe-link" value={label ? `${label} (${url})` : url} />;
  return (
    <a href={href} target="_blank" rel="noopener noreferrer">
      <Text value={label ?? url} />
    </a>
  );
}
