/**
 * Where a chat was compacted, on the web page (docs/models.md "Compaction"), in a real headless Chromium on BMAD
 * 6.12: the PM runs `bmad-create-epics-and-stories` on a route with a 16,000-token window (the scripted PM of
 * support/epics-workflow-responder.ts). A chat compacted in its earlier turns shows a line where it happened, every
 * message still there; a compaction during a turn the page is following shows its line at once, before that
 * turn's answer, and in the same place after a reload. Screenshots at 1400×900 and 390×844 in test-artifacts/.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { epicsWorkflowResponder, epicsWorkflowTurns } from "@agent-orchestrator/testing/epics-workflow-responder";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";
import { launchTestBrowser, openRecordedPage, type TestBrowser } from "@agent-orchestrator/testing/web-browser";
import { phone, screenshot, wide } from "@agent-orchestrator/testing/web-page-steps";
import type { Locator, Page } from "playwright-core";

const pm = "bmm/pm";
let system: TestSystem;
let browser: TestBrowser;

beforeAll(async () => {
  const root = await ensureBmadInstall({ version: "6.12.0", tool: "claude-code" });
  browser = await launchTestBrowser();
  system = await startTestSystem({
    responder: epicsWorkflowResponder,
    env: { BMAD_ROOT: root, MODEL_ROUTES: JSON.stringify({ routes: [{ name: "pm-small", match: { agent: pm }, model: "scripted", context_window: 16_000, output_reserve: 2_000 }] }) },
  });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await system?.stop();
});

async function chat(message: string, sessionId?: string): Promise<string> {
  const response = await fetch(`${system.url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ agent_id: pm, message, ...(sessionId ? { session_id: sessionId } : {}) }),
  });
  const body = (await response.json()) as { success: boolean; session_id: string };
  expect(body.success).toBe(true);
  return body.session_id;
}

/** Screenshots at both widths with `line` in view (the log follows its end otherwise); the page is left wide. */
async function shotsOf(page: Page, line: Locator, name: string): Promise<void> {
  for (const [viewport, file] of [[wide, name], [phone, `${name}-narrow`]] as const) {
    await page.setViewportSize(viewport);
    await line.scrollIntoViewIfNeeded();
    await screenshot(page, file);
  }
  expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(phone.width);
  await page.setViewportSize(wide);
}

describe("a compacted chat on the web page", () => {
  it("shows where the chat was compacted, live and after a reload, with every message kept", async () => {
    // the first seven turns through the API: the third compacts the old tool results
    let sessionId: string | undefined;
    for (const turn of epicsWorkflowTurns.slice(0, 7)) sessionId = await chat(turn.message, sessionId);
    const { page, problems } = await openRecordedPage(browser.context, system, wide, `/#/session/${sessionId ?? ""}`);
    const lines = page.locator("#chat-log .compaction-line");
    await lines.first().waitFor();
    expect(await lines.count()).toBe(1);
    expect(await lines.first().textContent()).toMatch(/^Compacted for the model: old tool results shortened \([\d,]+ → [\d,]+ tokens\)$/);
    // after the third user message, before its answer; every message is still shown
    const log = await page.locator("#chat-log > *").evaluateAll((elements) => elements.map((element) => (element.classList.contains("compaction-line") ? "line" : element.classList.contains("user") ? "user" : "agent")));
    expect(log.slice(0, 7)).toEqual(["user", "agent", "user", "agent", "user", "line", "agent"]);
    expect(log.filter((entry) => entry === "user")).toHaveLength(7);
    await shotsOf(page, lines.first(), "web-page-compaction-reloaded");

    // the eighth turn, typed on the page: its hand-off comes during the turn, and its line shows at once
    const input = page.getByRole("textbox", { name: "Message" });
    await input.fill(epicsWorkflowTurns[7]?.message ?? "");
    await input.press("Enter");
    await lines.nth(1).waitFor({ timeout: 30_000 });
    expect(await lines.nth(1).textContent()).toMatch(/^Compacted for the model: earlier conversation summarised \([\d,]+ → [\d,]+ tokens\)$/);
    await page.locator(".message.assistant").last().getByText("What comes next?").waitFor({ timeout: 30_000 });
    const live = await page.locator("#chat-log > *").evaluateAll((elements) => elements.slice(-3).map((element) => (element.classList.contains("compaction-line") ? "line" : element.classList.contains("user") ? "user" : "agent")));
    expect(live).toEqual(["user", "line", "agent"]);
    await shotsOf(page, lines.nth(1), "web-page-compaction-live");

    await page.reload();
    await lines.nth(1).waitFor();
    const reloaded = await page.locator("#chat-log > *").evaluateAll((elements) => elements.map((element) => (element.classList.contains("compaction-line") ? "line" : element.classList.contains("user") ? "user" : "agent")));
    expect(reloaded.slice(-3)).toEqual(["user", "line", "agent"]);
    expect(reloaded.filter((entry) => entry === "user")).toHaveLength(8);
    expect(problems).toEqual([]);
  }, 240_000);
});
