/**
 * The pieces the web page's browser tests share: a headless Chromium (Debian's `chromium`, or the one
 * packaged in `@sparticuz/chromium`; see chromium-path.ts) driven by playwright-core with a fresh profile,
 * a page per test that records what the browser complains about, and polling for a state the page reaches.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { onTestFinished } from "vitest";
import { chromiumExecutable } from "./chromium-path.js";
import { repoRoot } from "./service-processes.js";
import type { TestSystem } from "./test-system.js";

/** Where screenshots (and a failed test's logs) go, for a human to look at. */
export const artifacts = join(repoRoot, "test-artifacts");

export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A headless Chromium with a profile of its own, removed again by `close`. */
export async function launchTestBrowser(): Promise<TestBrowser> {
  const executablePath = await chromiumExecutable();
  await mkdir(artifacts, { recursive: true });
  const profile = await mkdtemp(join(tmpdir(), "ao-chromium-"));
  try {
    // a persistent context is how playwright takes a user-data dir of our choosing: a fresh one per run
    const context = await chromium.launchPersistentContext(profile, {
      executablePath,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
      // screenshots without half-finished animations
      reducedMotion: "reduce",
      acceptDownloads: true,
    });
    return {
      context,
      close: async () => {
        await context.close();
        await rm(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(profile, { recursive: true, force: true });
    throw error;
  }
}

/** Asks `check` every 20 ms until it returns a value; fails after 20 s. */
export async function poll<T>(check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("the page never reached the expected state");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * A page for the running test that records what the browser complains about. It is closed when the test
 * ends; a failed test first leaves a screenshot and the services' last log lines in test-artifacts/.
 */
export async function openRecordedPage(browser: BrowserContext, system: TestSystem, viewport: { width: number; height: number }, path = "/"): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  await page.setViewportSize(viewport);
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  onTestFinished(async ({ task }) => {
    if (task.result?.state === "fail") {
      const name = `failed-${task.name.replace(/[^a-z0-9]+/gi, "-").slice(0, 60)}`;
      await page.screenshot({ path: join(artifacts, `${name}.png`) }).catch(() => undefined);
      const logs = system.processes.map((service) => `## ${service.name}\n${service.lines.slice(-30).map((line) => JSON.stringify(line)).join("\n")}`);
      await writeFile(join(artifacts, `${name}.log`), [`## page\n${problems.join("\n")}`, ...logs].join("\n\n"));
    }
    await page.close();
  });
  await page.goto(`${system.url}${path}`);
  return { page, problems };
}
