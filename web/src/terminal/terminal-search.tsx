// The terminal's search box over xterm.js's search addon: it searches the scrollback as well as the screen
// (screen-painter.ts feeds the scrollback), highlights every match, scrolls to the current one and says
// "n of m". Enter finds the next older match, Shift+Enter the next newer one, Escape returns to the
// terminal.
import type { SearchAddon, ISearchOptions } from '@xterm/addon-search';
import { forwardRef, useEffect, useState } from 'react';

// Outlines only: a match background is drawn by xterm.js's DOM renderer as a style attribute on each cell,
// which the GUI's CSP (no inline styles) blocks; an outline is set through the CSSOM, which it allows.
const OPTIONS: ISearchOptions = {
  decorations: {
    matchBorder: '#ffd700',
    matchOverviewRuler: '#ffd700',
    activeMatchBorder: '#ff8c00',
    activeMatchColorOverviewRuler: '#ff8c00',
  },
};

interface Props {
  search: SearchAddon | null;
  /** Back to the terminal (Escape). */
  done(): void;
}

export const TerminalSearch = forwardRef<HTMLInputElement, Props>(function TerminalSearch({ search, done }, field) {
  const [query, setQuery] = useState('');
  const [results, setResults] = useState<{ index: number; count: number } | null>(null);

  useEffect(() => {
    if (!search) return;
    const changed = search.onDidChangeResults(({ resultIndex, resultCount }) =>
      setResults({ index: resultIndex, count: resultCount }),
    );
    return () => changed.dispose();
  }, [search]);

  // Older output is above: the first Enter finds the newest match, the next ones walk up the scrollback.
  const find = (towards: 'older' | 'newer') => {
    if (!search || query === '') return;
    if (towards === 'older') search.findPrevious(query, OPTIONS);
    else search.findNext(query, OPTIONS);
  };

  const summary =
    query === '' || results === null
      ? ''
      : results.count === 0
        ? 'No matches'
        : results.index < 0
          ? `${results.count}+ matches`
          : `${results.index + 1} of ${results.count}`;

  return (
    // biome-ignore lint/a11y/useSemanticElements: a form with role=search is the landmark; <search> would wrap it
    <form
      role="search"
      aria-label="terminal search"
      className="terminal-search"
      onSubmit={(event) => {
        event.preventDefault();
        find('older');
      }}
    >
      <input
        ref={field}
        type="search"
        aria-label="Search the terminal"
        placeholder="Search (Ctrl+Shift+F)"
        value={query}
        onChange={(event) => {
          setQuery(event.target.value);
          setResults(null);
          search?.clearDecorations();
        }}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && event.shiftKey) {
            event.preventDefault();
            find('newer');
          } else if (event.key === 'Escape') {
            search?.clearDecorations();
            done();
          }
        }}
      />
      <button type="submit">Find older</button>
      <button type="button" onClick={() => find('newer')}>
        Find newer
      </button>
      <span role="status" data-testid="terminal-search-results">
        {summary}
      </span>
    </form>
  );
});
