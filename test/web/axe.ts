// Accessibility checks of a GUI page with axe-core, run inside the page through the DevTools protocol (not
// a script tag, which the GUI's CSP refuses): the WCAG 2 A and AA rules, answering each serious or critical
// violation as `rule: target` so a failure says where.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            context: Document,
            options: object,
          ): Promise<{ violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    });
    return result.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .flatMap((violation) => violation.nodes.map((node) => `${violation.id}: ${node.target.join(' ')}`));
  });
}

/** The page's <h1> texts (every page has exactly one, issue #31). */
export function headingOnes(page: Page): Promise<string[]> {
  return page.locator('h1').evaluateAll((headings) => headings.map((h) => (h.textContent ?? '').trim()));
}

/**
 * Accessible names shared by two visible controls in one region, as `region: "name" ×n` (issue #31: every
 * control is unique by role and name where it stands). A region is the navigation, the main content, or an
 * open dialog (which makes the rest inert, so only it is checked). Names are axe's own computation.
 */
export async function duplicateNames(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(() => {
    const axe = (
      window as unknown as {
        axe: {
          setup(node: Node): void;
          teardown(): void;
          commons: { text: { accessibleText(element: Element): string } };
        };
      }
    ).axe;
    axe.setup(document);
    try {
      const dialog = document.querySelector('dialog[open]');
      const scope: ParentNode = dialog ?? document;
      const selector =
        'a[href], button, input:not([type="hidden"]), select, textarea, [role="option"], meter, [tabindex]:not([tabindex="-1"])';
      const seen = new Map<string, number>();
      for (const element of Array.from(scope.querySelectorAll(selector))) {
        if (!(element as HTMLElement).checkVisibility?.({ checkVisibilityCSS: true }) || element.closest('[hidden]'))
          continue;
        const region = dialog ? 'dialog' : element.closest('nav[aria-label="main"]') ? 'navigation' : 'main';
        const role = element.getAttribute('role') ?? element.tagName.toLowerCase();
        const name = axe.commons.text.accessibleText(element).trim().replace(/\s+/g, ' ');
        const key = `${region}: ${role} "${name}"`;
        seen.set(key, (seen.get(key) ?? 0) + 1);
      }
      return [...seen].filter(([, count]) => count > 1).map(([key, count]) => `${key} ×${count}`);
    } finally {
      axe.teardown();
    }
  });
}
