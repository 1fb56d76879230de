/**
 * The web page in a real headless Chromium (see support/web-browser.ts), driven by playwright-core, against
 * the four services as processes on a private NATS server, with the scripted model behind the real openai
 * client. Screenshots land in test-artifacts/ for a human to look at.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastMessage, type ChatRequestBody, type ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";
import { artifacts, launchTestBrowser, openRecordedPage, poll, type TestBrowser } from "@agent-orchestrator/testing/web-browser";

const brief = "# Product brief\n\n## Problem\nGood ideas get lost in **chat threads**.\n\n## People\n- product managers\n- founders\n";
const answer =
  "## Your brief is saved\n\nI wrote **brief.md** with the *problem* and the people who have it.\n\n" +
  "1. Read it in the file viewer\n2. Tell me what is missing\n\n" +
  'A model may write markup: <img src=x onerror="document.title=\'xss\'"> [x](javascript:document.title=\'xss\')\n\n' +
  "> One question: who feels this pain the most?";

/**
 * The model saves a brief when asked for one, then answers in markdown; "peek" makes it read a file
 * outside its bundle, which the sandbox refuses; "slowly" gets a slow answer; anything else a greeting.
 */
function respond(request: ChatRequestBody): ScriptedTurn {
  const last = lastMessage(request);
  if (last?.role === "tool") {
    const result = JSON.parse(String(last.content)) as { success: boolean };
    return result.success ? { text: answer, chunkDelayMs: 400 } : { text: "I may not read that file." };
  }
  if (String(last?.content ?? "").includes("slowly")) return { text: "One thought. Then another. And a last one, much later.", chunkDelayMs: 800 };
  if (String(last?.content ?? "").includes("peek")) return { toolCalls: [{ name: "read_file", arguments: { file_path: "{bundle-root}/../../etc/passwd" } }] };
  if (String(last?.content ?? "").includes("brief")) {
    return { toolCalls: [{ name: "save_output", arguments: { file_path: "{session-folder}/brief.md", content: brief } }] };
  }
  return { text: "Hello! What are we working on?" };
}

let system: TestSystem;
let browser: TestBrowser;

beforeAll(async () => {
  browser = await launchTestBrowser();
  system = await startTestSystem({ responder: respond });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await system?.stop();
});

const openPage = (viewport: { width: number; height: number }) => openRecordedPage(browser.context, system, viewport);

describe("the web page", () => {
  it("picks an agent, streams an answer with its tool call, and opens the saved file in the viewer", async () => {
    const { page, problems } = await openPage({ width: 1280, height: 860 });
    // the model calls this case makes, whatever ran before it
    const calls = system.model.requests.length;
    // the picker groups the sample agent under its bundle
    const group = page.getByRole("region", { name: "idea-studio (bundle)" });
    await group.getByRole("link", { name: "Nova — Idea Coach" }).click();
    // choosing the agent starts its chat with its greeting, written without the model
    await page.locator(".message.assistant.greeting").getByText("I'm Nova").waitFor();
    expect(system.model.requests).toHaveLength(calls);

    const input = page.getByRole("textbox", { name: "Message" });
    await input.fill("Please write a brief for my idea");
    await input.press("Enter");

    // the tool call shows with its name and virtual path, then ok
    const toolCall = page.locator(".tool-call", { hasText: "save_output" });
    await toolCall.getByText("{session-folder}/brief.md").waitFor();
    await toolCall.locator(".tool-verdict", { hasText: "ok" }).waitFor();

    // the answer streams: its start is rendered while the turn still runs (Stop is offered)
    const answerBody = page.locator(".message.assistant .markdown").last();
    const partial = await poll(async () => {
      // the answer's own text: the greeting above it is an earlier message
      const text = (await page.locator(".message.assistant").last().locator(".markdown").allTextContents()).join("");
      const running = await page.getByRole("button", { name: "Stop the answer" }).isVisible();
      return running && text !== "" && !text.includes("feels this pain") ? text : undefined;
    });
    // the scripted model sends the answer in three pieces: the first holds the heading
    expect(partial).toContain("Your brief is saved");
    await answerBody.getByText("who feels this pain the most?").waitFor();
    expect(await answerBody.locator("h2").textContent()).toBe("Your brief is saved");
    expect(await answerBody.locator("strong").first().textContent()).toBe("brief.md");
    expect(await answerBody.locator("ol > li").count()).toBe(2);
    // model output is shown as text: no element, no script link, no handler ran
    expect(await answerBody.getByText("A model may write markup").textContent()).toContain('<img src=x onerror="document.title=\'xss\'">');
    expect(await answerBody.locator("img, a[href^=javascript]").count()).toBe(0);
    expect(await page.title()).not.toBe("xss");
    await page.getByRole("button", { name: "Send" }).waitFor();
    expect(await page.getByRole("button", { name: "Stop the answer" }).isHidden()).toBe(true);

    // the new session is in the URL and in the list
    expect(page.url()).toMatch(/#\/session\/[\w-]+$/);
    await page.locator(".session-item[aria-current=page]", { hasText: "Please write a brief" }).waitFor();

    // the saved file, opened from the files list, renders as markdown
    await page.getByRole("button", { name: "Files (1)" }).click();
    await page.getByRole("complementary", { name: "Files" }).getByRole("button", { name: /^brief\.md/ }).click();
    const viewer = page.getByRole("complementary", { name: "brief.md" });
    expect(await viewer.getByRole("heading", { level: 1 }).textContent()).toBe("Product brief");
    expect(await viewer.locator("li").allTextContents()).toEqual(["product managers", "founders"]);

    await page.screenshot({ path: join(artifacts, "web-page.png") });
    expect(problems).toEqual([]);
  }, 60_000);

  it("reopens the session from the list and is usable on a 375-pixel-wide screen", async () => {
    // a session of its own, written through the API, so the case does not need the one above
    const chat = await fetch(`${system.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ agent_id: "idea-coach", message: "Please write a brief for my second idea" }),
    });
    expect(chat.status).toBe(200);
    const { page, problems } = await openPage({ width: 375, height: 800 });
    await page.getByRole("heading", { name: "Who would you like to work with?" }).waitFor();
    // the session list is a drawer behind the menu button on a narrow screen
    await page.getByRole("button", { name: "Sessions" }).click();
    await page.locator(".session-item", { hasText: "Please write a brief for my second idea" }).click();
    await page.locator(".message.user", { hasText: "Please write a brief for my second idea" }).waitFor();
    await page.locator(".message.assistant h2", { hasText: "Your brief is saved" }).waitFor();

    // nothing is wider than the screen
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);

    await page.getByRole("button", { name: "Files (1)" }).waitFor();
    await page.screenshot({ path: join(artifacts, "web-page-narrow.png") });
    expect(problems).toEqual([]);
  }, 60_000);

  it("shows a tool call the sandbox refused as denied, with its error code", async () => {
    const { page, problems } = await openPage({ width: 1024, height: 768 });
    await page.goto(`${system.url}/#/agent/idea-coach`);
    // the chat opens with the agent's greeting; the message continues that chat
    await page.locator(".message.assistant.greeting").getByText("I'm Nova").waitFor();
    const input = page.getByRole("textbox", { name: "Message" });
    await input.fill("peek at the system password file");
    await input.press("Enter");
    const row = page.locator(".tool-call", { hasText: "read_file" }).filter({ hasText: "etc/passwd" });
    await row.locator(".tool-verdict", { hasText: "denied" }).waitFor();
    expect(await row.locator(".tool-error-code").textContent()).toMatch(/^[A-Z_]+$/);
    expect(await row.locator(".tool-duration").textContent()).toMatch(/^\d+(\.\d)? m?s$/);
    await page.locator(".message.assistant .markdown").getByText("I may not read that file.").waitFor();
    expect(problems).toEqual([]);
  }, 60_000);

  it("stops a running answer with the Stop button", async () => {
    const { page, problems } = await openPage({ width: 1024, height: 768 });
    await page.goto(`${system.url}/#/agent/idea-coach`);
    await page.locator(".message.assistant.greeting").getByText("I'm Nova").waitFor();
    const input = page.getByRole("textbox", { name: "Message" });
    await input.fill("Think about it slowly");
    await input.press("Enter");
    const answerBody = page.locator(".message.assistant .markdown").last();
    await answerBody.getByText("One thought.").waitFor();
    await page.getByRole("button", { name: "Stop the answer" }).click();
    // the orchestrator cancels the turn, which ends with CANCELLED: a quiet note, not an error
    await page.locator(".message.assistant .note", { hasText: "Stopped." }).waitFor();
    await page.getByRole("button", { name: "Send" }).waitFor();
    expect(await answerBody.textContent()).not.toContain("much later");
    await page.locator(".session-item[aria-current=page] .status", { hasText: "stopped" }).waitFor();
    expect(problems).toEqual([]);
  }, 60_000);

  it("shows a turn that is still running when the page is reloaded, to its end", async () => {
    const { page, problems } = await openPage({ width: 1024, height: 768 });
    await page.goto(`${system.url}/#/agent/idea-coach`);
    const input = page.getByRole("textbox", { name: "Message" });
    await input.fill("Answer slowly, please");
    await input.press("Enter");
    await page.locator(".message.assistant .markdown").getByText("One thought.").waitFor();
    await page.reload();
    // the session is opened from the URL, and its running turn is followed from the start
    await page.locator(".message.user", { hasText: "Answer slowly, please" }).waitFor();
    await page.locator(".message.assistant .markdown").last().getByText("much later").waitFor();
    await page.getByRole("button", { name: "Send" }).waitFor();
    expect(problems).toEqual([]);
  }, 60_000);

  it("explains what went wrong, with the error's code and what to do: an unknown agent, an unknown session", async () => {
    const { page } = await openPage({ width: 1024, height: 768 });
    await page.goto(`${system.url}/#/agent/nobody-here`);
    await page.getByRole("alert").getByText("AGENT_NOT_FOUND").waitFor();
    await page.goto(`${system.url}/#/session/no-such-session`);
    const alert = page.getByRole("alert");
    await alert.getByText("SESSION_NOT_FOUND").waitFor();
    expect(await alert.textContent()).toContain("Start a new chat");
  }, 60_000);
});
