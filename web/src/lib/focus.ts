// Where keyboard focus goes when the control that held it disappears (a removed row, a closed dialog with
// nothing to return to): the page's own heading, which every page renders as its one <h1> with
// tabIndex -1 (components/page-title.tsx), so a screen reader announces where the user now is.
export function focusPageHeading(): void {
  document.querySelector<HTMLElement>('main h1')?.focus();
}
