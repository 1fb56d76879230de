/**
 * A project's repository on the web page (docs/repositories.md "A chat's work"), in a real headless Chromium on
 * BMAD 6.12 and the scripted model: a chat started on a named branch changed a file and added one; its header's
 * Changes button shows the files with their added and removed lines and each file's diff, and the owner discards the
 * uncommitted changes there; the files view's Repository button lists the branches and a branch's commits; the
 * files view shows the default branch, and its branch picker a chat's branch with the PRD it saved, uncommitted
 * (docs/repositories.md "The files API on a repository"), reached from the chat's Changes dialog too; a file too
 * large to attach inline goes into the chat's scratch space (docs/uploads.md "A large file for a chat"). Screenshots
 * at 1400×900 and 390×844 in test-artifacts/.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { toolCallResponder } from "@agent-orchestrator/testing/tool-call-responder";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";
import { launchTestBrowser, openRecordedPage, type TestBrowser } from "@agent-orchestrator/testing/web-browser";
import { phone, screenshot, wide } from "@agent-orchestrator/testing/web-page-steps";
import { attachBundle } from "@agent-orchestrator/testing/attach-bundle";
import { makeTestRepository } from "@agent-orchestrator/tool-runner/testing";

const agent = "bmm/dev";
let system: TestSystem;
let browser: TestBrowser;
let project: string;
let removeRepository: () => Promise<void>;

async function api(method: string, route: string, body?: unknown): Promise<Record<string, any>> {
  const response = await fetch(`${system.url}${route}`, { method, headers: { "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return (await response.json()) as Record<string, any>;
}

/** One turn of a chat that makes one tool call; the chat's id. */
async function tool(name: string, args: Record<string, unknown>, chat: { session?: string; branch?: string }): Promise<string> {
  const reply = await api("POST", "/api/chat", { agent_id: agent, project_id: project, ...(chat.session ? { session_id: chat.session } : {}), ...(chat.branch ? { branch: chat.branch } : {}), message: `call ${name}\n${JSON.stringify(args)}` });
  expect(reply["success"], JSON.stringify(reply)).toBe(true);
  return reply["session_id"] as string;
}

beforeAll(async () => {
  const root = await ensureBmadInstall({ version: "6.12.0", tool: "claude-code" });
  browser = await launchTestBrowser();
  system = await startTestSystem({ responder: toolCallResponder, env: { BMAD_ROOT: root } });
  const made = await makeTestRepository({ "src/add.js": "export function add(a, b) {\n  return a - b;\n}\n", "README.md": "calc\n" });
  removeRepository = made.remove;
  project = (await api("POST", "/api/projects", { name: "Calc" }))["project"].id as string;
  expect((await attachBundle(system.url, project, made.bundle)).status).toBe(201);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await system?.stop();
  await removeRepository?.();
});

describe("a project's repository on the web page", () => {
  it("shows a chat's changes, discards what it left uncommitted, and lists a branch's commits", async () => {
    const session = await tool("edit_file", { file_path: "{project-root}/src/add.js", old_string: "a - b", new_string: "a + b" }, { branch: "story/1-1-add" });
    await tool("save_output", { file_path: "{project-root}/docs/notes.md", content: "one\ntwo\n" }, { session });
    const { page, problems } = await openRecordedPage(browser.context, system, wide, `/#/session/${session}`);

    const changes = page.locator("#chat-changes");
    await changes.waitFor();
    await changes.click();
    const dialog = page.getByRole("dialog", { name: "Changes on story/1-1-add" });
    await dialog.getByText("2 files changed, 2 with uncommitted changes.", { exact: false }).waitFor();
    const file = dialog.locator("details.changed-file", { hasText: "src/add.js" });
    expect(await file.locator("summary").textContent()).toBe("src/add.js (modified, uncommitted +1 −1)");
    await file.locator("summary").click();
    const lines = file.getByRole("list", { name: "Changes of src/add.js" });
    expect(await lines.locator(".diff-removed .diff-text").textContent()).toContain("return a - b;");
    expect(await lines.locator(".diff-added .diff-text").textContent()).toContain("return a + b;");
    await screenshot(page, "web-page-repository-changes");
    await page.setViewportSize(phone);
    await screenshot(page, "web-page-repository-changes-narrow");
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(phone.width);
    await page.setViewportSize(wide);

    await dialog.getByRole("button", { name: "Discard uncommitted changes" }).click();
    await page.getByRole("dialog", { name: "Discard uncommitted changes?" }).getByRole("button", { name: "Discard" }).click();
    await dialog.getByText("0 files changed, nothing uncommitted.", { exact: false }).waitFor();
    expect(await dialog.getByRole("button", { name: "Discard uncommitted changes" }).count()).toBe(0);
    await dialog.getByRole("button", { name: "Close" }).click();

    await page.goto(`${system.url}/#/projects/${project}/files`);
    const history = page.locator("#repository-history");
    await history.waitFor();
    await history.click();
    const repository = page.getByRole("dialog", { name: "Repository" });
    const commits = repository.getByRole("list", { name: "Commits of main" });
    await commits.waitFor();
    expect(await commits.locator(".commit-subject").allTextContents()).toEqual(["first"]);
    await repository.getByLabel("Branch").selectOption("story/1-1-add");
    await repository.getByRole("list", { name: "Commits of story/1-1-add" }).waitFor();
    await screenshot(page, "web-page-repository-commits");
    expect(problems).toEqual([]);
  }, 240_000);

  it("shows the default branch's files, and a chat's branch with the PRD it saved through the branch picker and the chat's link", async () => {
    const prd = "_bmad-output/planning-artifacts/prd.md";
    const session = await tool("save_output", { file_path: `{project-root}/${prd}`, content: "# PRD\n\nJohn's draft.\n" }, {});
    const { page, problems } = await openRecordedPage(browser.context, system, wide, `/#/projects/${project}/files`);
    const tree = page.getByRole("tree", { name: "Project files" });
    await tree.getByRole("treeitem", { name: "README.md" }).waitFor();
    expect(await tree.getByRole("treeitem", { name: "_bmad-output" }).count()).toBe(0);
    const picker = page.locator("#branch-picker");
    expect(await picker.locator("option").first().textContent()).toBe("main (default)");
    expect(await page.locator("#upload-button").isHidden()).toBe(true);
    await page.getByText("These are the files of the project's git repository.").waitFor();
    await picker.selectOption(`chat/${session}`);
    await tree.getByRole("treeitem", { name: "_bmad-output" }).waitFor();
    expect(page.url()).toContain(`?branch=${encodeURIComponent(`chat/${session}`)}`);
    await page.getByText(`chat/${session}: the chat's working tree`, { exact: false }).waitFor();

    await page.goto(`${system.url}/#/session/${session}`);
    await page.locator("#chat-changes").click();
    await page.getByRole("dialog", { name: `Changes on chat/${session}` }).getByRole("link", { name: "Browse its branch's files" }).click();
    await tree.getByRole("treeitem", { name: "_bmad-output" }).waitFor();
    await page.goto(`${system.url}/#/projects/${project}/files/${prd}?branch=${encodeURIComponent(`chat/${session}`)}`);
    await page.locator("#file-pane-body .markdown").getByText("John's draft.").waitFor();
    await page.getByText("read-only: repository").waitFor();
    await screenshot(page, "web-page-repository-branch-files");
    expect(problems).toEqual([]);
  }, 240_000);

  it("uploads a file too large to send inline into the chat's own scratch space, with its progress row, and the model is told {session-folder}/… for it and for a small one", async () => {
    const session = (await api("POST", "/api/sessions", { agent_id: agent, project_id: project }))["session_id"] as string;
    const { page, problems } = await openRecordedPage(browser.context, system, wide, `/#/session/${session}`);
    // the chat is shown once its greeting is: a file chosen before has no chat to go to
    await page.locator(".message").first().waitFor();
    await page.locator("#attach-input").setInputFiles([
      { name: "todo.md", mimeType: "text/markdown", buffer: Buffer.from("# To do\n") },
      { name: "survey.csv", mimeType: "text/csv", buffer: Buffer.from("answer,count\n".padEnd(200 * 1024, "x")) },
    ]);
    await page.locator(".composer .upload-row.upload-done", { hasText: "inputs/survey.csv" }).waitFor();
    await page.getByRole("list", { name: "Files attached to the message" }).getByText("survey.csv").waitFor();
    await page.getByLabel("Message", { exact: true }).fill("What do the answers say?");
    await page.keyboard.press("Enter");
    // both named as the chat's own files, the small one sent inline too
    const sent = page.locator(".message.user").last();
    await sent.locator(".attachment-chip[title='{session-folder}/inputs/survey.csv']").waitFor();
    await sent.locator(".attachment-chip[title='{session-folder}/inputs/todo.md']").waitFor();
    await expect.poll(() => JSON.stringify(system.model.requests.at(-1)?.body.messages ?? [])).toContain("{session-folder}/inputs/survey.csv");
    expect(JSON.stringify(system.model.requests.at(-1)?.body.messages ?? [])).toContain("{session-folder}/inputs/todo.md");
    // in the chat's files, never in the repository's working tree
    expect((await api("GET", `/api/sessions/${session}/files`))["files"].map((file: { path: string }) => file.path)).toEqual(["inputs/survey.csv", "inputs/todo.md"]);
    expect((await api("GET", `/api/projects/${project}/files`))["files"].map((file: { path: string }) => file.path)).not.toContain("inputs/survey.csv");
    await screenshot(page, "web-page-repository-large-attachment");
    expect(problems).toEqual([]);
  }, 240_000);
});
