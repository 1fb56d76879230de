/**
 * The web page's project files view in a real headless Chromium (see support/web-browser.ts), against the
 * four services as processes: uploads by the file input, by drag and drop and with a progress bar, an
 * uploaded PDF's Markdown form, a file's revisions with their diff and a restore, and the project as a zip.
 * Screenshots at 1400×900 and 390×844 land in test-artifacts/.
 */
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildPdf } from "@agent-orchestrator/tool-runner/testing";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";
import { artifacts, launchTestBrowser, openRecordedPage, poll, type TestBrowser } from "@agent-orchestrator/testing/web-browser";

let system: TestSystem;
let browser: TestBrowser;

beforeAll(async () => {
  browser = await launchTestBrowser();
  // no chat in these tests: the model is never asked
  system = await startTestSystem({ responder: () => ({ text: "Hello!" }) });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await system?.stop();
});

/** A project of the test's own, so the tests do not depend on each other's files. */
async function createProject(name: string): Promise<string> {
  const response = await fetch(`${system.url}/api/projects`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name }) });
  expect(response.status).toBe(201);
  return ((await response.json()) as { project: { id: string } }).project.id;
}

/** A new revision of a file, written through the API as another client would. */
async function putFile(projectId: string, path: string, content: string): Promise<void> {
  const response = await fetch(`${system.url}/api/projects/${projectId}/files/${path}`, { method: "PUT", body: content });
  expect(response.ok).toBe(true);
}

/** A screenshot in test-artifacts/, checked to be a non-empty PNG. */
async function screenshot(page: Page, name: string): Promise<void> {
  const path = join(artifacts, `${name}.png`);
  await page.screenshot({ path });
  expect((await stat(path)).size).toBeGreaterThan(1000);
  expect([...(await readFile(path)).subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
}

/** Chromium sends request bodies at `bytesPerSecond` (-1: unthrottled), so an upload's progress can be seen. */
async function throttleUploads(page: Page, bytesPerSecond: number): Promise<void> {
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: bytesPerSecond });
}

/** Drops `files` onto the files view as a user dragging them from the desktop would. */
async function dropFiles(page: Page, files: Array<{ name: string; type: string; text: string }>): Promise<void> {
  // a string, as the test's own types know no DOM
  const dataTransfer = await page.evaluateHandle(`(() => {
    const transfer = new DataTransfer();
    for (const file of ${JSON.stringify(files)}) transfer.items.add(new File([file.text], file.name, { type: file.type }));
    return transfer;
  })()`);
  for (const type of ["dragenter", "dragover", "drop"]) await page.dispatchEvent("#files-view", type, { dataTransfer });
}

const pdf = Buffer.from(buildPdf({ pages: [["Market research", "Small shops lose customers to long queues."]] }));

describe("the project files view", () => {
  it("uploads a PDF and shows its Markdown form, takes a dropped file into the chosen folder, compares and restores revisions, and downloads the zip", async () => {
    const projectId = await createProject("Shop research");
    await putFile(projectId, "docs/plan.md", "# Plan\n\nStep one.\n");
    const { page, problems } = await openRecordedPage(browser.context, system, { width: 1400, height: 900 }, `/#/projects/${projectId}/files`);
    await page.getByRole("heading", { name: "Files of Shop research" }).waitFor();
    expect(await page.getByRole("combobox", { name: "Project" }).inputValue()).toBe(projectId);
    const tree = page.getByRole("tree", { name: "Project files" });
    await tree.getByRole("treeitem", { name: "plan.md" }).waitFor();

    // a PDF through the file input: stored, converted, its Markdown form opened
    await page.locator("#upload-input").setInputFiles({ name: "brief.pdf", mimeType: "application/pdf", buffer: pdf });
    await tree.getByRole("treeitem", { name: "brief.pdf", exact: true }).waitFor();
    await tree.getByRole("treeitem", { name: "brief.pdf.md" }).waitFor();
    await page.getByRole("heading", { level: 2, name: "brief.pdf.md" }).waitFor();
    await page.locator("#file-pane-body .markdown").getByText("Small shops lose customers to long queues.").waitFor();
    expect(await page.locator(".upload-row.upload-done").count()).toBe(1);
    // the PDF itself: a download, and the way to its Markdown form
    await tree.getByRole("treeitem", { name: "brief.pdf", exact: true }).click();
    await page.getByRole("button", { name: "Download brief.pdf" }).waitFor();
    await page.locator("#file-pane-body").getByRole("button", { name: "brief.pdf.md" }).click();
    await page.getByRole("heading", { level: 2, name: "brief.pdf.md" }).waitFor();
    await page.getByText("Converted from").waitFor();
    await screenshot(page, "web-page-files-viewer");

    // a Markdown file dropped while the docs folder is chosen lands in docs/
    await tree.getByRole("treeitem", { name: "docs" }).locator(".tree-row").first().click();
    await page.locator("#upload-target").getByText("docs/").waitFor();
    await dropFiles(page, [{ name: "notes.md", type: "text/markdown", text: "# Interview notes\n\n- queues are the pain\n" }]);
    await page.getByRole("heading", { level: 2, name: "docs/notes.md" }).waitFor();
    await page.locator("#file-pane-body h1", { hasText: "Interview notes" }).waitFor();

    // the keyboard reaches the tree and opens a file with the arrow keys and Enter
    await tree.getByRole("treeitem", { name: "notes.md" }).focus();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 2, name: "docs/plan.md" }).waitFor();
    await screenshot(page, "web-page-files");

    // a second revision written through the API: history, diff, restore of revision 1
    await putFile(projectId, "docs/plan.md", "# Plan\n\nStep one, revised.\nStep two.\n");
    await page.getByRole("button", { name: "Refresh files" }).click();
    await tree.getByRole("treeitem", { name: "plan.md" }).click();
    await page.getByRole("button", { name: "History" }).click();
    await page.locator(".revision-item").nth(1).waitFor();
    expect(await page.locator(".revision-item strong").allTextContents()).toEqual(["Revision 2", "Revision 1"]);
    const diff = page.getByRole("list", { name: "Differences from revision 1 to revision 2" });
    await diff.waitFor();
    expect(await diff.locator(".diff-removed .diff-text").allTextContents()).toEqual(["Removed: Step one."]);
    expect(await diff.locator(".diff-added .diff-text").allTextContents()).toEqual(["Added: Step one, revised.", "Added: Step two."]);
    await screenshot(page, "web-page-files-history");
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Restore revision 1" }).click();
    await page.locator(".pane-meta", { hasText: "Revision 3" }).waitFor();
    await page.locator("#file-pane-body").getByText("Step one.", { exact: true }).waitFor();
    const restored = (await (await fetch(`${system.url}/api/projects/${projectId}/files/docs/plan.md`)).json()) as { file: { revision: number }; content: string };
    expect(restored).toMatchObject({ file: { revision: 3 }, content: "# Plan\n\nStep one.\n" });

    // the whole project as a zip
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download all (.zip)" }).click()]);
    expect(download.suggestedFilename()).toBe(`${projectId}.zip`);
    const zip = await readFile((await download.path()) ?? "");
    expect(zip.subarray(0, 2).toString("latin1")).toBe("PK");
    expect(zip.includes(Buffer.from("docs/notes.md"))).toBe(true);

    // uploads go slowly enough to watch: the progress bar moves before the file is stored
    await throttleUploads(page, 256 * 1024);
    await page.locator("#upload-input").setInputFiles({ name: "survey.csv", mimeType: "text/csv", buffer: Buffer.from("answer,count\n".padEnd(1024 * 1024, "x")) });
    const bar = page.locator(".upload-row", { hasText: "survey.csv" }).locator("progress");
    await poll(async () => {
      const [value, max] = [Number(await bar.getAttribute("value")), Number(await bar.getAttribute("max"))];
      return value > 0 && value < max ? true : undefined;
    });
    await screenshot(page, "web-page-files-upload");
    await throttleUploads(page, -1);
    await page.locator(".upload-row.upload-done", { hasText: "survey.csv" }).waitFor({ timeout: 30_000 });
    expect(problems).toEqual([]);
  }, 120_000);

  it("shows a refused upload's reason, and on a 390-pixel-wide screen stacks the tree and the open file", async () => {
    const projectId = await createProject("Phone project");
    await putFile(projectId, "inputs/survey.csv", 'name,answer\nAda,"Queues, mostly"\n<b>Bo</b>,fine\n');
    await putFile(projectId, "inputs/survey.csv", 'name,answer\nAda,"Queues, mostly"\n<b>Bo</b>,fine\nCy,slow tills\n');
    const { page, problems } = await openRecordedPage(browser.context, system, { width: 390, height: 844 }, `/#/projects/${projectId}/files`);
    const tree = page.getByRole("tree", { name: "Project files" });
    await tree.getByRole("treeitem", { name: "survey.csv" }).waitFor();
    expect(await page.locator(".file-pane").isHidden()).toBe(true);
    await screenshot(page, "web-page-files-narrow");

    // a bad name is refused with what to do about it; the page is no wider than the screen
    await page.locator("#upload-input").setInputFiles({ name: ".env", mimeType: "text/plain", buffer: Buffer.from("SECRET=1\n") });
    const refusal = page.locator(".upload-row.upload-failed", { hasText: ".env" }).getByRole("alert");
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain("This name cannot be stored");
    await screenshot(page, "web-page-files-upload-narrow");

    // the CSV as a table of text: the markup in a cell is not markup
    await tree.getByRole("treeitem", { name: "survey.csv" }).click();
    await page.getByRole("heading", { level: 2, name: "inputs/survey.csv" }).waitFor();
    expect(await tree.isHidden()).toBe(true);
    const table = page.locator(".csv-table table");
    // the heading comes first, the content when it has loaded
    await table.locator("th").first().waitFor();
    expect(await table.locator("th").allTextContents()).toEqual(["name", "answer"]);
    expect(await table.locator("tbody tr").first().locator("td").allTextContents()).toEqual(["Ada", "Queues, mostly"]);
    expect(await table.locator("td", { hasText: "<b>Bo</b>" }).count()).toBe(1);
    expect(await table.locator("b").count()).toBe(0);
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    await screenshot(page, "web-page-files-viewer-narrow");

    await page.getByRole("button", { name: "History" }).click();
    await page.getByRole("list", { name: "Differences from revision 1 to revision 2" }).waitFor();
    expect(await page.locator(".diff-added .diff-text").allTextContents()).toEqual(["Added: Cy,slow tills"]);
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    await screenshot(page, "web-page-files-history-narrow");

    // back to the tree; a file pasted from the clipboard goes into the folder last looked at
    await page.getByRole("button", { name: "All files" }).click();
    await tree.waitFor();
    await page.evaluate(`(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File(["pasted from the clipboard"], "pasted.txt", { type: "text/plain" }));
      document.dispatchEvent(new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true }));
    })()`);
    await page.getByRole("heading", { level: 2, name: "inputs/pasted.txt" }).waitFor();
    await page.locator("#file-pane-body pre", { hasText: "pasted from the clipboard" }).waitFor();
    // the refused upload is the only failed request
    expect(problems).toEqual(["console: Failed to load resource: the server responded with a status of 400 (Bad Request)"]);
  }, 60_000);
});
