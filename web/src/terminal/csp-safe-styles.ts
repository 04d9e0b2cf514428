// xterm.js 6 writes its theme colours, cell sizing and scrollbar CSS into <style> elements it creates while a
// terminal opens, and the GUI's CSP blocks inline style elements (no 'unsafe-inline'; docs/security.md H21).
// For the duration of that open() call only, this hands xterm.js stand-ins for those elements: inert
// <template> elements whose text goes into constructed stylesheets (document.adoptedStyleSheets), which the
// CSP permits, and which leave with the element. Nothing outside the call is affected.
// Its DOM renderer also styles single cells (24-bit colours, a selection's colours, contrast fixes) with
// `setAttribute('style', …)`, which the CSP blocks as an inline style attribute; the same declarations set
// through CSSOM (`style.cssText`) are script, not markup, and the CSP allows them.

type CreateElement = Document['createElement'];

function styleStandIn(document: Document, create: CreateElement): HTMLElement {
  const holder = create.call(document, 'template');
  const sheet = new CSSStyleSheet();
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  let text = '';
  Object.defineProperty(holder, 'textContent', {
    get: () => text,
    set: (value: unknown) => {
      text = value == null ? '' : String(value);
      sheet.replaceSync(text);
    },
  });
  const remove = holder.remove.bind(holder);
  holder.remove = () => {
    remove();
    document.adoptedStyleSheets = document.adoptedStyleSheets.filter((each) => each !== sheet);
  };
  return holder;
}

/** Runs `open` with `<style>` elements created through `document` replaced by stylesheet stand-ins. */
export function withCspSafeStyles<T>(document: Document, open: () => T): T {
  const create = document.createElement;
  const patched = function (this: Document, tagName: string, options?: ElementCreationOptions) {
    return tagName.toLowerCase() === 'style' ? styleStandIn(document, create) : create.call(document, tagName, options);
  };
  Object.defineProperty(document, 'createElement', { value: patched, configurable: true, writable: true });
  try {
    return open();
  } finally {
    delete (document as { createElement?: unknown }).createElement;
  }
}

const cssomStyled = new WeakSet<object>();

/**
 * Makes `setAttribute('style', …)` on <span> elements set the declarations through CSSOM. The cells are
 * spans, and nothing else in the GUI writes a span's style attribute (React sets styles through CSSOM too);
 * markup an attacker could inject is still parsed under the CSP.
 */
export function styleSpansThroughCssom(window: Window & typeof globalThis): void {
  const prototype = window.HTMLSpanElement.prototype;
  if (cssomStyled.has(prototype)) return;
  cssomStyled.add(prototype);
  const setAttribute = prototype.setAttribute;
  prototype.setAttribute = function (this: HTMLSpanElement, name: string, value: string) {
    if (name.toLowerCase() === 'style') this.style.cssText = String(value);
    else setAttribute.call(this, name, value);
  };
}
