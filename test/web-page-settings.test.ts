/**
 * BMAD's settings on the web page (docs/settings.md) in a real headless Chromium against the four services on a
 * real BMAD 6.12 install: the owner sets a project's answers and team customization in the project panel, a member
 * sets their own name and language under "My settings", and another member sees the project's settings read-only.
 * Screenshots at 1400×900 and 390×844 (test-artifacts/web-page-settings-*.png); the page fits a phone's width.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";
import { enterToken, phone, screenshotBoth, wide } from "@agent-orchestrator/testing/web-page-steps";
import { launchTestBrowser, openRecordedPage, type TestBrowser } from "@agent-orchestrator/testing/web-browser";

const tokens = { alice: "alice-token-1111", bob: "bob-token-22222" } as const;

let system: TestSystem;
let alice: TestBrowser;
let bob: TestBrowser;
let projectId = "";

async function call(user: keyof typeof tokens, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${system.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${tokens[user]}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await response.json()) as Record<string, unknown>;
}

beforeAll(async () => {
  const root = await ensureBmadInstall({ version: "6.12.0", tool: "claude-code" });
  [alice, bob] = await Promise.all([launchTestBrowser(), launchTestBrowser()]);
  system = await startTestSystem({
    responder: () => ({ text: "Hello" }),
    env: { BMAD_ROOT: root, AUTH_TOKENS: Object.entries(tokens).map(([user, token]) => `${user}:${token}`).join(","), HOST: "127.0.0.1" },
  });
  projectId = ((await call("alice", "POST", "/api/projects", { name: "Checkout redesign" }))["project"] as { id: string }).id;
  await call("alice", "PUT", `/api/projects/${projectId}/members/bob`, { role: "editor" });
}, 240_000);

afterAll(async () => {
  await alice?.close();
  await bob?.close();
  await system?.stop();
});

describe("BMAD's settings on the web page", () => {
  it("the owner edits the project's settings, a member their own, and another member reads the project's", async () => {
    const { page, problems } = await openRecordedPage(alice.context, system, wide, `/#/projects/${projectId}`);
    await enterToken(page, tokens.alice);
    await page.getByRole("heading", { level: 1, name: "Checkout redesign" }).waitFor();

    await page.getByRole("button", { name: "Settings", exact: true }).click();
    const project = page.getByRole("dialog", { name: "Settings of Checkout redesign" });
    const projectName = project.getByLabel("Project name agents use");
    // the dialog fills its fields once the project's settings arrive: the default shows as the placeholder
    await projectName.and(page.locator('[placeholder="Checkout redesign"]')).waitFor();
    await projectName.fill("Checkout v2");
    await project.getByLabel("Language of documents").fill("German");
    await project.getByLabel("Team customization per skill (JSON)").fill('{"bmad-agent-analyst": {"agent": {"icon": "🔎"}}}');
    await project.getByRole("button", { name: "Save settings" }).click();
    await project.getByText("Saved. New turns use these settings.").waitFor();
    await screenshotBoth(page, "web-page-settings-project");
    await project.getByLabel("Team customization per skill (JSON)").fill("{ not json");
    await project.getByRole("button", { name: "Save settings" }).click();
    await project.getByText("The customization is not JSON").waitFor();
    await project.getByRole("button", { name: "Close" }).click();
    expect(await call("alice", "GET", `/api/projects/${projectId}/settings`)).toMatchObject({
      settings: { bmad: { project_name: "Checkout v2", document_output_language: "German" }, customize: { "bmad-agent-analyst": { agent: { icon: "🔎" } } } },
    });

    // on a phone the project panel is folded in the drawer: the settings are two taps further
    await page.setViewportSize(phone);
    await page.getByRole("button", { name: "Project and sessions" }).click();
    if (!(await page.getByRole("button", { name: "My settings" }).isVisible())) await page.locator("#project-panel > summary").click();
    await page.getByRole("button", { name: "My settings" }).click();
    const mine = page.getByRole("dialog", { name: "My settings" });
    // the dialog fills its fields once the member's settings arrive: the default name shows as the placeholder
    await mine.getByLabel("Your name").and(page.locator('[placeholder="alice"]')).waitFor();
    await mine.getByLabel("Your name").fill("Alice Liddell");
    await mine.getByLabel("Language agents speak to you in").fill("French");
    await mine.getByRole("button", { name: "Save settings" }).click();
    await mine.getByText("Saved. New turns use these settings.").waitFor();
    await screenshotBoth(page, "web-page-settings-mine");
    await mine.getByRole("button", { name: "Close" }).click();
    expect(await call("alice", "GET", "/api/me/settings")).toMatchObject({ settings: { bmad: { user_name: "Alice Liddell", communication_language: "French" } } });

    const member = await openRecordedPage(bob.context, system, wide, `/#/projects/${projectId}`);
    await enterToken(member.page, tokens.bob);
    await member.page.getByRole("heading", { level: 1, name: "Checkout redesign" }).waitFor();
    await member.page.getByRole("button", { name: "Settings", exact: true }).click();
    const readOnly = member.page.getByRole("dialog", { name: "Settings of Checkout redesign" });
    await readOnly.getByText("Only the owner changes them.").waitFor();
    await expect.poll(() => readOnly.getByLabel("Project name agents use").inputValue()).toBe("Checkout v2");
    expect(await readOnly.getByLabel("Project name agents use").isDisabled()).toBe(true);
    expect(await readOnly.getByRole("button", { name: "Save settings" }).count()).toBe(0);
    await screenshotBoth(member.page, "web-page-settings-read-only");
    // the page's first requests are refused until the token is entered
    expect(problems.filter((problem) => !problem.includes("401"))).toEqual([]);
    expect(member.problems.filter((problem) => !problem.includes("401"))).toEqual([]);
  }, 180_000);
});
