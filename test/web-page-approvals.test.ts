/**
 * Approvals on the web page (docs/approvals.md "On the web page") in a real headless Chromium against the four
 * services, with a scripted model that makes the tool call the message spells out. In a project that asks before
 * save_output and edit_file, the owner approves a save_output at desktop width (the card shows the new file as a
 * diff) and the turn resumes in the same message; at phone width she rejects an edit_file with a message (the card
 * diffs it against the file as it is now) while a viewer watches the card read-only, with who can decide, and sees
 * it decided. The top bar's badge counts and lists what waits. Screenshots at 1400×900 and 390×844 in test-artifacts/.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";
import { toolCallResponder } from "@agent-orchestrator/testing/tool-call-responder";
import { launchTestBrowser, openRecordedPage, type TestBrowser } from "@agent-orchestrator/testing/web-browser";
import { enterToken, phone, screenshotBoth, wide } from "@agent-orchestrator/testing/web-page-steps";
import type { Page } from "playwright-core";

const tokens = { alice: "alice-token-1111", bob: "bob-token-22222" } as const;

let system: TestSystem;
let alice: TestBrowser;
let bob: TestBrowser;
let projectId = "";
let sessionId = "";

async function call(user: keyof typeof tokens, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${system.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${tokens[user]}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await response.json()) as Record<string, unknown>;
}

/** Sends a message asking the scripted model for exactly this tool call. */
async function askForCall(page: Page, tool: string, toolArguments: Record<string, unknown>): Promise<void> {
  const input = page.getByRole("textbox", { name: "Message" });
  await input.fill(`call ${tool}\n${JSON.stringify(toolArguments)}`);
  await input.press("Enter");
}

/** A project file's text as the API reads it now, or undefined when it does not exist. */
async function projectFile(path: string): Promise<string | undefined> {
  const read = await call("alice", "GET", `/api/projects/${projectId}/files/${path}`);
  return read["success"] === true ? String(read["content"]) : undefined;
}

beforeAll(async () => {
  [alice, bob] = await Promise.all([launchTestBrowser(), launchTestBrowser()]);
  system = await startTestSystem({
    responder: toolCallResponder,
    env: { AUTH_TOKENS: Object.entries(tokens).map(([user, token]) => `${user}:${token}`).join(","), HOST: "127.0.0.1" },
  });
  projectId = ((await call("alice", "POST", "/api/projects", { name: "Launch plan" }))["project"] as { id: string }).id;
  await call("alice", "PUT", `/api/projects/${projectId}/members/bob`, { role: "viewer" });
  expect(await call("alice", "PUT", `/api/projects/${projectId}/settings`, { approvals: { tools: { save_output: "ask", edit_file: "ask" } } })).toMatchObject({ success: true });
  // a chat of the project, started with the agent's greeting (no model call)
  sessionId = String((await call("alice", "POST", "/api/sessions", { agent_id: "idea-coach", project_id: projectId }))["session_id"]);
}, 120_000);

afterAll(async () => {
  await alice?.close();
  await bob?.close();
  await system?.stop();
});

describe("approvals on the web page", () => {
  it("the owner approves one call at desktop width and rejects another at phone width, while a viewer watches", async () => {
    const { page, problems } = await openRecordedPage(alice.context, system, wide, `/#/session/${sessionId}`);
    await enterToken(page, tokens.alice);
    await page.locator(".message.assistant").getByText("I'm Nova").waitFor();

    // desktop: a save_output waits; its card shows the new file as a diff, and the badge counts it
    await askForCall(page, "save_output", { file_path: "{project-root}/docs/plan.md", content: "# Plan\n\n- launch in May\n" });
    const saveCard = page.getByRole("region", { name: "save_output needs approval" });
    await saveCard.getByText("save_output is set to ask", { exact: false }).waitFor();
    await saveCard.getByText("docs/plan.md does not exist yet: 3 lines added, 0 removed.").waitFor();
    await saveCard.getByRole("status").getByText(/^Waiting for your decision · expires in/).waitFor();
    await page.getByRole("button", { name: "Tool calls waiting for your approval: 1" }).waitFor();
    await page.locator(".session-item[aria-current=page] .status", { hasText: "needs approval" }).waitFor();
    await screenshotBoth(page, "web-page-approvals-waiting");
    expect(await projectFile("docs/plan.md")).toBeUndefined();

    await saveCard.getByRole("button", { name: "Approve", exact: true }).click();
    await saveCard.getByRole("status").getByText("Approved by you").waitFor();
    // the turn resumed in the same message: the call ran, and the model answered with its result
    const saved = page.locator(".message.assistant", { has: saveCard });
    await saved.locator(".tool-call", { hasText: "save_output" }).locator(".tool-verdict", { hasText: "ok" }).waitFor();
    await saved.locator(".markdown", { hasText: '"success":true' }).waitFor();
    await page.getByRole("button", { name: "Send" }).waitFor();
    await page.getByRole("button", { name: /^Tool calls waiting for your approval/ }).waitFor({ state: "hidden" });
    expect(await projectFile("docs/plan.md")).toBe("# Plan\n\n- launch in May\n");
    await screenshotBoth(page, "web-page-approvals-approved");

    // phone: an edit_file waits, diffed against the file as it is now
    await page.setViewportSize(phone);
    await askForCall(page, "edit_file", { file_path: "{project-root}/docs/plan.md", old_string: "launch in May", new_string: "launch in June" });
    const editCard = page.getByRole("region", { name: "edit_file needs approval" });
    await editCard.getByText("Compared with docs/plan.md as it is now: 1 line added, 1 removed.").waitFor();
    expect(await editCard.locator(".diff-added .diff-text").textContent()).toBe("Added: - launch in June");

    // the viewer sees the same card read-only, with who can decide
    const viewer = await openRecordedPage(bob.context, system, wide, `/#/session/${sessionId}`);
    await enterToken(viewer.page, tokens.bob);
    const watched = viewer.page.getByRole("region", { name: "edit_file needs approval" });
    await watched.getByText("alice or the project's owner can decide.").waitFor();
    expect(await watched.getByRole("button").count()).toBe(0);
    await watched.getByRole("status").getByText(/^Waiting for a decision/).waitFor();
    await screenshotBoth(viewer.page, "web-page-approvals-viewer");

    // the badge lists what waits, each a link to its chat
    await page.getByRole("button", { name: "Tool calls waiting for your approval: 1" }).click();
    const list = page.getByRole("dialog", { name: "Waiting for your approval" });
    await list.getByRole("link", { name: /edit_file/ }).waitFor();
    expect(await list.getByText("Launch plan · alice's chat", { exact: false }).count()).toBe(1);
    await screenshotBoth(page, "web-page-approvals-badge");
    await list.getByRole("button", { name: "Close" }).click();

    // reject with a message, by keyboard: the model reads it, the file stays as it was
    await editCard.getByRole("button", { name: "Reject" }).click();
    const message = editCard.getByLabel("Message to the agent (optional)");
    expect(await message.evaluate((element) => element === element.ownerDocument.activeElement)).toBe(true);
    await message.fill("Keep May: the venue is booked");
    await screenshotBoth(page, "web-page-approvals-rejecting");
    await editCard.getByRole("button", { name: "Reject the call" }).press("Enter");
    await editCard.getByRole("status").getByText("Rejected by you: “Keep May: the venue is booked”").waitFor();
    const rejected = page.locator(".message.assistant", { has: editCard });
    await rejected.locator(".markdown", { hasText: "alice rejected this call, so it was not run: Keep May: the venue is booked" }).waitFor();
    expect(await projectFile("docs/plan.md")).toBe("# Plan\n\n- launch in May\n");
    // the viewer's card follows the decision made on the owner's page
    await watched.getByRole("status").getByText("Rejected by alice").waitFor();
    await screenshotBoth(page, "web-page-approvals-rejected");
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(phone.width);

    // the page's first requests are refused until the token is entered; the new file's card read a file not there yet
    expect(problems.filter((problem) => !problem.includes("401"))).toEqual(["console: Failed to load resource: the server responded with a status of 404 (Not Found)"]);
    expect(viewer.problems.filter((problem) => !problem.includes("401"))).toEqual([]);
  }, 180_000);
});
