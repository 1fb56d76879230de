/**
 * Steps the web page's browser tests take again and again: entering the access token the page asks for, and a
 * step's screenshots at a wide and a phone-sized viewport, checked to be non-empty PNGs in test-artifacts/.
 */
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { expect } from "vitest";
import { artifacts } from "./web-browser.js";

export const wide = { width: 1400, height: 900 } as const;
export const phone = { width: 390, height: 844 } as const;

/** A gateway with AUTH_TOKENS: the page asks for a token once, keeps it, and retries what was refused. */
export async function enterToken(page: Page, token: string): Promise<void> {
  const dialog = page.getByRole("dialog", { name: "Access token" });
  await dialog.waitFor();
  await dialog.getByLabel("Token").fill(token);
  await dialog.getByRole("button", { name: "Save and retry" }).click();
  await dialog.waitFor({ state: "hidden" });
}

/** A screenshot in test-artifacts/, checked to be a non-empty PNG. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const path = join(artifacts, `${name}.png`);
  await page.screenshot({ path });
  expect((await stat(path)).size).toBeGreaterThan(1000);
  expect([...(await readFile(path)).subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
}

/**
 * `<name>.png` at 1400×900 and `<name>-narrow.png` at 390×844; the page is left at the width it had. On the
 * phone the page must be no wider than the screen.
 */
export async function screenshotBoth(page: Page, name: string): Promise<void> {
  const before = page.viewportSize() ?? wide;
  await page.setViewportSize(wide);
  await screenshot(page, name);
  await page.setViewportSize(phone);
  await screenshot(page, `${name}-narrow`);
  expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(phone.width);
  await page.setViewportSize(before);
}
