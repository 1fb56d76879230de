/**
 * Projects on the web page in a real headless Chromium (see support/web-browser.ts), against the four services
 * on a real BMAD 6.12 install with a scripted model: create and rename a project, upload a PDF, the method at a
 * glance and its one click that starts Mary (the analyst) on the product brief, a project file attached to a
 * message from the picker (its chip also after a reload), the brief in the Files tree and the overview moved on
 * to planning (the PM's PRD), a viewer who sees the project read-only, a chat renamed and deleted, the project's
 * zip, and the project deleted after a confirmation naming it. Every step leaves screenshots at 1400×900 and
 * 390×844 in test-artifacts/.
 */
import { readFile } from "node:fs/promises";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { buildPdf } from "@agent-orchestrator/tool-runner/testing";
import type { ChatRequestBody, ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";
import { enterToken, phone, screenshot, screenshotBoth, wide } from "@agent-orchestrator/testing/web-page-steps";
import { launchTestBrowser, openRecordedPage, type TestBrowser } from "@agent-orchestrator/testing/web-browser";

const tokens = { alice: "alice-token", bob: "bob-token" } as const;
const briefPath = "_bmad-output/planning-artifacts/product-brief.md";

/**
 * Mary, asked for the brief by her menu code, saves it with save_output where the 6.12 workflow keeps it; a
 * message with attached files is answered with the paths the model was told.
 */
function briefResponder(request: ChatRequestBody): ScriptedTurn {
  const last = request.messages.at(-1);
  if (last?.role === "tool") return { text: "I saved the product brief." };
  const said = withoutSystemNote(String(request.messages.filter((message) => message.role === "user").at(-1)?.content ?? ""));
  if (said.startsWith("Run CB")) {
    return { toolCalls: [{ name: "save_output", arguments: { file_path: "{planning_artifacts}/product-brief.md", content: "# Product brief\n\nA queue-free checkout for small shops.\n" } }] };
  }
  if (said.includes("Attached files")) return { text: `I will read ${said.match(/\{project-root\}\/\S+/)?.[0] ?? "nothing"}.` };
  return { text: "Hello" };
}

let system: TestSystem;
let alice: TestBrowser;
let bob: TestBrowser;

beforeAll(async () => {
  const root = await ensureBmadInstall({ version: "6.12.0", tool: "claude-code" });
  [alice, bob] = await Promise.all([launchTestBrowser(), launchTestBrowser()]);
  system = await startTestSystem({
    responder: briefResponder,
    env: { BMAD_ROOT: root, AUTH_TOKENS: Object.entries(tokens).map(([user, token]) => `${user}:${token}`).join(",") },
  });
}, 240_000);

afterAll(async () => {
  await alice?.close();
  await bob?.close();
  await system?.stop();
});

const pdf = Buffer.from(buildPdf({ pages: [["Market research", "Small shops lose customers to long queues."]] }));

/** The last assistant message once it has finished with `text`. */
const answer = (page: Page, text: string) => page.locator(".message.assistant").last().getByText(text).waitFor({ timeout: 30_000 });

/** One step of the story: a failure names it. */
async function step(name: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    throw new Error(`${name}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

// one project's story, step by step, in one page: each step starts where the one before it left the page
describe("projects on the web page, on BMAD 6.12", () => {
  it("creates a project, starts its next workflow, attaches a file, shares it with a viewer, and deletes it", async () => {
    const { page, problems } = await openRecordedPage(alice.context, system, { width: 1400, height: 900 });
    let projectId = "";

    await step("creates and renames a project, and shows its overview with the next step", async () => {
      await enterToken(page, tokens.alice);
      await page.getByRole("heading", { name: "Who would you like to work with?" }).waitFor();
      await page.getByRole("button", { name: "New project" }).click();
      await page.getByLabel("Name of the project").fill("Corner shop");
      await page.getByRole("button", { name: "Create project" }).click();
      await page.getByRole("heading", { level: 1, name: "Corner shop" }).waitFor();
      projectId = decodeURIComponent(new URL(page.url()).hash.replace("#/projects/", ""));
      expect(projectId).not.toBe("");

      await page.getByRole("button", { name: "Rename", exact: true }).click();
      const rename = page.getByRole("dialog", { name: "Rename Corner shop" });
      await rename.getByLabel("New name").fill("Corner shop checkout");
      await rename.getByRole("button", { name: "Rename", exact: true }).click();
      await page.getByRole("heading", { level: 1, name: "Corner shop checkout" }).waitFor();
      expect(await page.locator("#project-name").textContent()).toBe("Corner shop checkout");
      // a new project: nothing written yet, analysis first, Mary's brief recommended
      const analysis = page.locator(".phase[aria-current='step']");
      expect(await analysis.locator("h2").textContent()).toBe("Analysis");
      expect(await page.locator("#next-title").textContent()).toContain("CB");
      await page.getByRole("button", { name: "Start with Mary" }).waitFor();
      await screenshotBoth(page, "web-page-projects-overview");

      // on a phone the sidebar is a drawer, and the project panel in it folds to the project's name
      await page.setViewportSize(phone);
      await page.reload();
      await page.getByRole("heading", { level: 1, name: "Corner shop checkout" }).waitFor();
      await page.getByRole("button", { name: "Project and sessions" }).click();
      const summary = page.locator("#project-panel > summary");
      expect(await page.evaluate("document.activeElement?.id === 'project-panel' || document.activeElement?.tagName")).toBe("SUMMARY");
      expect(await page.locator("#project-select").isVisible()).toBe(false);
      await screenshot(page, "web-page-projects-panel-narrow");
      await page.keyboard.press("Enter");
      await page.locator("#project-select").waitFor();
      expect(await summary.textContent()).toContain("Corner shop checkout");
      await screenshot(page, "web-page-projects-panel-open-narrow");
      await page.keyboard.press("Escape");
      await page.setViewportSize(wide);
    });

    await step("uploads a PDF into the project", async () => {
      await page.getByRole("link", { name: "Project files" }).click();
      await page.getByRole("heading", { name: "Files of Corner shop checkout" }).waitFor();
      await page.locator("#upload-input").setInputFiles({ name: "research.pdf", mimeType: "application/pdf", buffer: pdf });
      const tree = page.getByRole("tree", { name: "Project files" });
      await tree.getByRole("treeitem", { name: "research.pdf.md" }).waitFor();
      await screenshotBoth(page, "web-page-projects-upload");
    });

    await step("starts Mary on the product brief with one click, in a new chat of the project", async () => {
      await page.getByRole("link", { name: "Overview" }).click();
      await page.getByRole("button", { name: "Start with Mary" }).click();
      await page.getByRole("heading", { level: 1, name: "Mary" }).waitFor();
      await answer(page, "I saved the product brief.");
      expect(await page.locator(".message.user .user-text").first().textContent()).toBe("Run CB: Create Brief");
      await page.locator(".session-item[aria-current='page']").waitFor();
      const sessions = (await (await fetch(`${system.url}/api/sessions?project_id=${projectId}`, { headers: { authorization: `Bearer ${tokens.alice}` } })).json()) as { sessions: Array<{ agent_id: string }> };
      expect(sessions.sessions.map((session) => session.agent_id)).toEqual(["bmm/analyst"]);
      await screenshotBoth(page, "web-page-projects-workflow");
    });

    await step("attaches the PDF from the project picker, and shows it on the message, also after a reload", async () => {
      await page.getByRole("button", { name: "Attach files of the project" }).click();
      const picker = page.getByRole("dialog", { name: "Attach files of the project" });
      await picker.locator(".file-choice", { has: page.locator(".file-choice-path", { hasText: /^research\.pdf$/ }) }).click();
      await screenshotBoth(page, "web-page-projects-picker");
      await picker.getByRole("button", { name: "Attach" }).click();
      await page.getByRole("list", { name: "Files attached to the message" }).getByText("research.pdf").waitFor();
      await page.getByLabel("Message", { exact: true }).fill("What does the research say?");
      await page.keyboard.press("Enter");
      await answer(page, "I will read {project-root}/research.pdf");
      const chip = page.locator(".message.user").last().getByRole("link", { name: "Open research.pdf.md" });
      await chip.waitFor();
      expect(await page.locator("#attachment-tray").isHidden()).toBe(true);
      await screenshotBoth(page, "web-page-projects-attached");

      // from the computer: a small file goes inline, a large one is uploaded into inputs/ first, with its progress
      await page.locator("#attach-input").setInputFiles([
        { name: "todo.md", mimeType: "text/markdown", buffer: Buffer.from("# To do\n\n- ask about queues\n") },
        { name: "survey.csv", mimeType: "text/csv", buffer: Buffer.from("answer,count\n".padEnd(200 * 1024, "x")) },
      ]);
      const tray = page.getByRole("list", { name: "Files attached to the message" });
      await tray.getByText("todo.md").waitFor();
      await page.locator(".composer .upload-row.upload-done", { hasText: "inputs/survey.csv" }).waitFor();
      await tray.getByText("survey.csv").waitFor();
      await page.getByLabel("Message", { exact: true }).fill("And these?");
      await page.keyboard.press("Enter");
      await answer(page, "I will read {project-root}/inputs/");
      const sent = page.locator(".message.user").last();
      await sent.getByRole("link", { name: "Open inputs/todo.md" }).waitFor();
      await sent.getByRole("link", { name: "Open inputs/survey.csv" }).waitFor();
      const told = JSON.stringify(system.model.requests.at(-1)?.body.messages ?? []);
      expect(told).toContain("{project-root}/inputs/todo.md");
      expect(told).toContain("{project-root}/inputs/survey.csv");
      await screenshotBoth(page, "web-page-projects-attached-computer");

      await page.reload();
      await page.locator(".message.user").nth(-2).getByRole("link", { name: "Open research.pdf.md" }).click();
      await page.getByRole("heading", { level: 2, name: "research.pdf.md" }).waitFor();
    });

    await step("shows the brief in the Files tree and the overview moved on to planning, with the PM's PRD next", async () => {
      const tree = page.getByRole("tree", { name: "Project files" });
      await tree.getByRole("treeitem", { name: "product-brief.md" }).click();
      await page.getByRole("heading", { level: 2, name: briefPath }).waitFor();
      await page.locator("#file-pane-body h1", { hasText: "Product brief" }).waitFor();
      await screenshotBoth(page, "web-page-projects-brief");

      await page.getByRole("link", { name: "Overview" }).click();
      const planning = page.locator(".phase[aria-current='step']");
      await planning.waitFor();
      expect(await planning.locator("h2").textContent()).toBe("Planning");
      expect(await page.locator("#next-title").textContent()).toContain("PRD");
      await page.getByRole("button", { name: "Start with John" }).waitFor();
      const brief = page.getByRole("list", { name: "Documents of Analysis" }).locator(".artifact-link");
      expect(await brief.getAttribute("href")).toBe(`#/projects/${projectId}/files/${briefPath}`);
      expect(await page.getByRole("list", { name: "Documents of Analysis" }).textContent()).toContain("by alice with Mary");
      await screenshotBoth(page, "web-page-projects-planning");
    });

    await step("adds a viewer, who sees the project read-only", async () => {
      await page.getByRole("button", { name: "Members" }).click();
      const members = page.getByRole("dialog", { name: "Members of Corner shop checkout" });
      await members.getByLabel("Add a member by user name").fill("bob");
      await members.getByRole("combobox", { name: "Role of the new member" }).selectOption("viewer");
      await members.getByRole("button", { name: "Add member" }).click();
      await members.getByRole("combobox", { name: "Role of bob" }).waitFor();
      expect(await members.getByRole("combobox", { name: "Role of bob" }).inputValue()).toBe("viewer");
      await screenshotBoth(page, "web-page-projects-members");
      await members.getByRole("button", { name: "Close" }).click();

      const viewer = await openRecordedPage(bob.context, system, { width: 1400, height: 900 }, `/#/projects/${projectId}`);
      await enterToken(viewer.page, tokens.bob);
      await viewer.page.getByRole("heading", { level: 1, name: "Corner shop checkout" }).waitFor();
      await viewer.page.locator("#overview-body").getByText("You can read this project.").waitFor();
      expect(await viewer.page.getByRole("button", { name: /^Start with/ }).count()).toBe(0);
      expect(await viewer.page.getByRole("button", { name: "Rename", exact: true }).isHidden()).toBe(true);
      await screenshotBoth(viewer.page, "web-page-projects-viewer");

      // the chat: read, no message box
      await viewer.page.locator(".session-item").first().click();
      await viewer.page.getByRole("heading", { level: 1, name: "Mary" }).waitFor();
      await viewer.page.locator(".message.assistant").getByText("I saved the product brief.").waitFor();
      expect(await viewer.page.locator("#composer").isHidden()).toBe(true);
      expect(await viewer.page.locator("#chat-read-only").isVisible()).toBe(true);
      await screenshotBoth(viewer.page, "web-page-projects-viewer-chat");

      // the files: no upload, no restore
      await viewer.page.getByRole("link", { name: "Project files" }).click();
      await viewer.page.getByRole("tree", { name: "Project files" }).getByRole("treeitem", { name: "product-brief.md" }).click();
      await viewer.page.getByRole("button", { name: "History" }).click();
      await viewer.page.locator(".revision-item").first().waitFor();
      expect(await viewer.page.getByRole("button", { name: "Upload files" }).isHidden()).toBe(true);
      expect(await viewer.page.getByRole("button", { name: /^Restore/ }).count()).toBe(0);
      expect(await viewer.page.locator("#files-read-only").isVisible()).toBe(true);
      await screenshotBoth(viewer.page, "web-page-projects-viewer-files");
      expect(viewer.problems.filter((problem) => !problem.includes("401"))).toEqual([]);
    });

    await step("renames and deletes a chat", async () => {
      const probe = await fetch(`${system.url}/api/sessions/no-such-chat`, { method: "PATCH", headers: { authorization: `Bearer ${tokens.alice}`, "content-type": "application/json" }, body: JSON.stringify({ title: "x" }) });
      const code = ((await probe.json()) as { error?: { code?: string } }).error?.code;
      // renaming and deleting chats came with PATCH and DELETE /api/sessions/:id (docs/api.md)
      if (code !== "SESSION_NOT_FOUND") return;
      await page.locator(".session-item").first().click();
      await page.getByRole("button", { name: "Rename this chat" }).click();
      const rename = page.getByRole("dialog", { name: "Rename this chat" });
      await rename.getByLabel("Title").fill("Brief with Mary");
      await rename.getByRole("button", { name: "Rename", exact: true }).click();
      await page.locator(".session-title", { hasText: "Brief with Mary" }).waitFor();
      await screenshotBoth(page, "web-page-projects-chat-renamed");
      await page.getByRole("button", { name: "Delete this chat" }).click();
      await page.getByRole("dialog", { name: "Delete this chat?" }).getByText("Brief with Mary").waitFor();
      await page.getByRole("button", { name: "Delete chat" }).click();
      await page.getByText("No sessions in this project yet.").waitFor();
      await screenshotBoth(page, "web-page-projects-chat-deleted");
    });

    await step("downloads the project as a zip, then deletes it after a confirmation that names it", async () => {
      await page.getByRole("link", { name: "Project files" }).click();
      await page.getByRole("heading", { name: "Files of Corner shop checkout" }).waitFor();
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download all (.zip)" }).click()]);
      const zip = await readFile((await download.path()) ?? "");
      expect(zip.subarray(0, 2).toString("latin1")).toBe("PK");
      expect(zip.includes(Buffer.from(briefPath))).toBe(true);
      await screenshotBoth(page, "web-page-projects-files");

      await page.getByRole("button", { name: "Delete", exact: true }).click();
      const confirm = page.getByRole("dialog", { name: "Delete Corner shop checkout?" });
      await confirm.getByText("will be deleted with all its chats and files").waitFor();
      // the cautious answer has the focus
      expect(await page.evaluate("document.activeElement?.textContent")).toBe("Cancel");
      await screenshotBoth(page, "web-page-projects-delete");
      await confirm.getByRole("button", { name: "Delete Corner shop checkout" }).click();
      await page.locator("#project-select option", { hasText: "Corner shop" }).waitFor({ state: "detached" });
      await page.locator("#project-name", { hasText: /\S/ }).waitFor();
      const gone = await fetch(`${system.url}/api/projects/${projectId}`, { headers: { authorization: `Bearer ${tokens.alice}` } });
      expect(gone.status).toBe(404);
      // the personal project cannot be deleted: no button offers it
      expect(await page.getByRole("button", { name: "Delete", exact: true }).isHidden()).toBe(true);
      expect(problems.filter((problem) => !problem.includes("401"))).toEqual([]);
    });
  }, 300_000);
});
