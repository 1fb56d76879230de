/**
 * The chats on the web page, in a real headless Chromium (support/web-browser.ts) on a real BMAD 6.12 install
 * (user name `Ada`) with a scripted model: choosing Mary starts her chat with her greeting and menu before any
 * model call, the first message continues that chat, and the chat is renamed, found by a word of the answer,
 * exported as Markdown, described in "About this chat", and deleted after a confirmation that names it (one that
 * is answering is not, and the page says why). Each
 * step leaves screenshots at 1400×900 and 390×844 in test-artifacts/.
 */
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultInstallUserName, ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import type { ChatRequestBody, ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";
import { launchTestBrowser, openRecordedPage, type TestBrowser } from "@agent-orchestrator/testing/web-browser";
import { phone, screenshot, screenshotBoth, wide } from "@agent-orchestrator/testing/web-page-steps";

const notesPath = "notes/harbour-ideas.md";

/** Mary saves the user's idea into the project, then answers with a word the search finds ("lighthouse"). */
function respond(request: ChatRequestBody): ScriptedTurn {
  if (request.messages.at(-1)?.role === "tool") return { text: `I noted the **lighthouse cafés** in ${notesPath}. What do they have in common?` };
  return { toolCalls: [{ name: "save_output", arguments: { file_path: `{project-root}/${notesPath}`, content: "# Harbour ideas\n\n- lighthouse cafés\n" } }] };
}

let system: TestSystem;
let browser: TestBrowser;

beforeAll(async () => {
  const root = await ensureBmadInstall({ version: "6.12.0", tool: "claude-code" });
  browser = await launchTestBrowser();
  system = await startTestSystem({ responder: respond, env: { BMAD_ROOT: root } });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await system?.stop();
});

/** One step of the story: a failure names it. */
async function step(name: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    throw new Error(`${name}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

describe("chats on the web page, on BMAD 6.12", () => {
  it("greets on choosing Mary, continues the chat, and renames, finds, exports, describes and deletes it", async () => {
    const { page, problems } = await openRecordedPage(browser.context, system, wide);
    const currentRow = page.locator(".session-row", { has: page.locator(".session-item[aria-current=page]") });
    const openMenu = async () => {
      await currentRow.locator("summary").click();
      return currentRow.getByRole("group", { name: /^Actions for/ });
    };

    await step("choosing Mary shows her greeting and menu at once, without a model call", async () => {
      await page.getByRole("link", { name: /^Mary — / }).click();
      const greeting = page.locator(".message.assistant.greeting");
      await greeting.getByText(`Hello ${defaultInstallUserName}! I'm Mary`).waitFor();
      // the numbered menu is part of the Markdown, and again as buttons that fill in the message box
      expect(await greeting.locator(".markdown ol > li").count()).toBeGreaterThan(3);
      const menu = page.getByRole("list", { name: "Mary's menu" });
      const entries = await menu.getByRole("button").count();
      expect(entries).toBe(await greeting.locator(".markdown ol > li").count());
      await menu.getByRole("button").first().click();
      expect(await page.getByRole("textbox", { name: "Message" }).inputValue()).not.toBe("");
      // the chat exists already: it is in the URL and current in the list
      expect(page.url()).toMatch(/#\/session\/[\w-]+$/);
      await page.locator(".session-item[aria-current=page]", { hasText: "New chat with Mary" }).waitFor();
      expect(system.model.requests).toHaveLength(0);
      await screenshotBoth(page, "web-page-chats-greeting");
    });

    await step("the first message continues the greeted chat", async () => {
      const sessionUrl = page.url();
      const input = page.getByRole("textbox", { name: "Message" });
      await input.fill("I have ideas for the harbour");
      await input.press("Enter");
      await page.locator(".message.assistant").last().getByText("lighthouse cafés").waitFor({ timeout: 30_000 });
      expect(page.url()).toBe(sessionUrl);
      // the model saw the greeting as its own earlier answer, right before the user's message
      const messages = system.model.requests[0]?.body.messages ?? [];
      expect(messages.at(-2)).toMatchObject({ role: "assistant" });
      expect(String(messages.at(-2)?.content)).toContain(`Hello ${defaultInstallUserName}!`);
      expect(messages.at(-1)).toMatchObject({ role: "user", content: "I have ideas for the harbour" });
      await page.locator(".session-item[aria-current=page]", { hasText: "I have ideas for the harbour" }).waitFor();
      await screenshotBoth(page, "web-page-chats-answer");
    });

    await step("renames the chat from the list", async () => {
      await (await openMenu()).getByRole("button", { name: "Rename…" }).click();
      const dialog = page.getByRole("dialog", { name: "Rename this chat" });
      await dialog.getByLabel("Title").fill("Harbour plan");
      await dialog.getByRole("button", { name: "Rename", exact: true }).click();
      await page.locator(".session-item[aria-current=page] .session-title", { hasText: "Harbour plan" }).waitFor();
      await screenshotBoth(page, "web-page-chats-renamed");
    });

    await step("finds the chat by a word of the answer, with the keyboard", async () => {
      const search = page.getByRole("searchbox", { name: "Search this project's chats" });
      await search.fill("Lighthouse");
      const results = page.getByRole("list", { name: "Chats found" });
      const found = results.locator(".session-item", { hasText: "Harbour plan" });
      await found.waitFor();
      expect(await found.locator("mark").first().textContent()).toBe("lighthouse");
      await page.getByRole("status").getByText("1 chat contains “Lighthouse”.").waitFor();
      await search.press("ArrowDown");
      expect(await found.evaluate((element) => element === element.ownerDocument.activeElement)).toBe(true);
      await screenshotBoth(page, "web-page-chats-search");
      // on a phone the list and its search are in the drawer behind the menu button
      await page.setViewportSize(phone);
      await page.getByRole("button", { name: "Project and sessions" }).click();
      await found.waitFor();
      await screenshot(page, "web-page-chats-search-drawer-narrow");
      await page.keyboard.press("Escape");
      await page.setViewportSize(wide);
      await search.focus();
      await search.press("Escape");
      await results.waitFor({ state: "hidden" });
      expect(await search.inputValue()).toBe("");
    });

    await step("exports the chat as Markdown", async () => {
      const menu = await openMenu();
      const [download] = await Promise.all([page.waitForEvent("download"), menu.getByRole("button", { name: "Export as Markdown" }).click()]);
      expect(download.suggestedFilename()).toBe("Harbour plan.md");
      const markdown = await readFile((await download.path()) ?? "", "utf8");
      expect(markdown).toContain("Harbour plan");
      expect(markdown).toContain("I have ideas for the harbour");
      expect(markdown).toContain("lighthouse cafés");
      await screenshotBoth(page, "web-page-chats-exported");
    });

    await step("shows what the chat is and did in About this chat", async () => {
      await page.getByText("About this chat").click();
      const facts = page.locator(".chat-facts");
      await facts.waitFor();
      expect(await facts.textContent()).toContain("done");
      expect(await facts.textContent()).toContain("Mary");
      const file = page.locator(".chat-about").getByRole("link", { name: notesPath });
      expect(await file.getAttribute("href")).toMatch(new RegExp(`^#/projects/[\\w-]+/files/${notesPath}$`));
      await screenshotBoth(page, "web-page-chats-about");
    });

    await step("deletes the chat after a confirmation that names it", async () => {
      await (await openMenu()).getByRole("button", { name: "Delete…" }).click();
      const dialog = page.getByRole("dialog", { name: "Delete “Harbour plan”?" });
      await dialog.waitFor();
      await screenshotBoth(page, "web-page-chats-delete");
      await dialog.getByRole("button", { name: "Delete chat" }).click();
      await page.locator(".session-item", { hasText: "Harbour plan" }).waitFor({ state: "detached" });
      expect(page.url()).toMatch(/#\/projects\/[\w-]+$/);
      await screenshotBoth(page, "web-page-chats-deleted");
    });

    expect(problems).toEqual([]);

    await step("explains that a chat cannot be deleted while it answers", async () => {
      // a turn of another chat, still waiting for the model when the page tries to delete its chat
      system.model.enqueue({ text: "The tides come and go.", delayMs: 8000 });
      const turn = await fetch(`${system.url}/api/chat`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify({ agent_id: "bmm/analyst", message: "Think about the tides", detach: true }),
      });
      const reader = turn.body?.getReader();
      await reader?.read();
      await reader?.cancel();
      await page.getByRole("button", { name: "Refresh sessions" }).click();
      // a chat's first message becomes its title when its first turn ends: until then it is named by its agent
      const row = page.locator(".session-row", { has: page.locator(".status-running") });
      await row.waitFor();
      await row.locator("summary").click();
      await row.getByRole("button", { name: "Delete…" }).click();
      await page.getByRole("dialog", { name: "Delete “New chat with Mary”?" }).getByRole("button", { name: "Delete chat" }).click();
      await page.getByRole("status").getByText("is answering right now, so it cannot be deleted").waitFor();
      await row.waitFor();
      await screenshotBoth(page, "web-page-chats-busy");
    });

    // the refused request is the only thing the browser complains about
    expect(problems).toEqual(["console: Failed to load resource: the server responded with a status of 409 (Conflict)"]);
  }, 180_000);
});
