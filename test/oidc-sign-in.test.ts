/**
 * OpenID Connect sign-in with the whole system (docs/sign-in.md; docs/security.md cases 194–196): a real
 * provider (support/oidc-provider.ts), the four services as processes under the NATS permission config, and
 * a headless Chromium (support/web-browser.ts). A user signs in on the provider's own pages and sees only
 * the projects they are in; a colleague added as viewer signs in and cannot write; the provider's access
 * tokens work on /api, /v1 and /mcp; signing out ends the sign-in. Screenshots go to test-artifacts/.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOidcProvider, type TestOidcProvider } from "./support/oidc-provider.js";
import { startTestSystem, type TestSystem } from "./support/test-system.js";
import { launchTestBrowser, openRecordedPage, type TestBrowser } from "./support/web-browser.js";
import { screenshot, wide } from "./support/web-page-steps.js";
import { freePort } from "./support/free-port.js";

const audience = "https://agents.example.test";
let provider: TestOidcProvider;
let system: TestSystem;
let browser: TestBrowser;
let adaProject: string;


beforeAll(async () => {
  const port = await freePort();
  const redirect = `http://127.0.0.1:${port}/auth/callback`;
  provider = await startOidcProvider({ redirectUris: [redirect], users: { ada: { email: "ada@example.com" }, cy: { email: "cy@example.com" } } });
  browser = await launchTestBrowser();
  system = await startTestSystem({
    responder: () => ({ text: "Hello" }),
    env: {
      HOST: "127.0.0.1",
      PORT: String(port),
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: provider.clientId,
      OIDC_CLIENT_SECRET: provider.clientSecret,
      OIDC_REDIRECT_URL: redirect,
      OIDC_AUDIENCE: audience,
      OIDC_ALLOWED_DOMAINS: "example.com",
    },
  });
  // each has a project of their own; ada adds cy to hers as a viewer
  const as = async (user: string) => ({ authorization: `Bearer ${await provider.mint(user, audience)}`, "content-type": "application/json" });
  const created = await fetch(`${system.url}/api/projects`, { method: "POST", headers: await as("ada"), body: JSON.stringify({ name: "Ada's plans" }) });
  adaProject = ((await created.json()) as { project: { id: string } }).project.id;
  await fetch(`${system.url}/api/projects`, { method: "POST", headers: await as("cy"), body: JSON.stringify({ name: "Cy's notes" }) });
  const member = await fetch(`${system.url}/api/projects/${adaProject}/members/cy`, { method: "PUT", headers: await as("ada"), body: JSON.stringify({ role: "viewer" }) });
  expect(member.status).toBe(200);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await system?.stop();
  await provider?.close();
});

/** From the page's sign-in dialog through the provider's login and consent pages back to the page, signed in. */
async function signIn(page: Page, user: string): Promise<void> {
  const dialog = page.getByRole("dialog", { name: "Sign in" });
  await dialog.waitFor();
  await dialog.getByRole("link", { name: "Sign in" }).click();
  await page.locator('input[name="login"]').fill(user);
  await page.locator('input[name="password"]').fill("any password");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.locator("#signed-in-user", { hasText: user }).waitFor();
}

/** The projects the page offers in its project switcher. */
const projectNames = (page: Page) => page.locator("#project-select option").allTextContents();

/** A request the page itself makes with its cookie and CSRF token, as its own code would. */
function pageRequest(page: Page, method: string, path: string, body: string): Promise<{ status: number; code: string | undefined }> {
  return page.evaluate(
    async ({ method, path, body }) => {
      const me = (await (await fetch("/auth/me")).json()) as { csrf_token?: string };
      const response = await fetch(path, { method, headers: { "content-type": "text/markdown", "x-csrf-token": me.csrf_token ?? "" }, body });
      const answer = (await response.json().catch(() => ({}))) as { error?: { code?: string } };
      return { status: response.status, code: answer.error?.code };
    },
    { method, path, body },
  );
}

describe("signing in on the web page", () => {
  it("shows Sign in, signs ada in at the provider, and lists only the projects she is in", async () => {
    // nobody signed in, whichever case ran before
    await browser.context.clearCookies();
    const { page, problems } = await openRecordedPage(browser.context, system, wide);
    await page.getByRole("dialog", { name: "Sign in" }).waitFor();
    await screenshot(page, "oidc-sign-in");
    await signIn(page, "ada");
    await page.locator("#project-select option", { hasText: "Ada's plans" }).waitFor({ state: "attached" });
    const names = await projectNames(page);
    expect(names.join("|")).toContain("Ada's plans");
    expect(names.join("|")).not.toContain("Cy's notes");
    await screenshot(page, "oidc-signed-in");
    // the page writes with its cookie and CSRF token: an owner's file is stored
    expect(await pageRequest(page, "PUT", `/api/projects/${adaProject}/files/notes.md`, "# Notes\n")).toMatchObject({ status: 201 });
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("dialog", { name: "Sign in" }).waitFor();
    expect((await page.evaluate(async () => (await fetch("/api/projects")).status))).toBe(401);
    // the 401s of the page before the sign-in, and the web font the provider's development pages ask for offline
    expect(problems.filter((problem) => !problem.includes("401") && !problem.includes("ERR_NAME_NOT_RESOLVED"))).toEqual([]);
  });

  it("signs in cy, a viewer of ada's project: it is listed beside her own, and writing to it is refused with 403", async () => {
    await browser.context.clearCookies();
    const { page } = await openRecordedPage(browser.context, system, wide);
    await signIn(page, "cy");
    await page.locator("#project-select option", { hasText: "Ada's plans" }).waitFor({ state: "attached" });
    expect((await projectNames(page)).join("|")).toContain("Cy's notes");
    expect(await pageRequest(page, "PUT", `/api/projects/${adaProject}/files/cy.md`, "# Mine\n")).toEqual({ status: 403, code: "PROJECT_FORBIDDEN" });
    await screenshot(page, "oidc-signed-in-viewer");
  });
});

describe("the provider's access tokens", () => {
  it("work as bearer tokens on /api, /v1 and /mcp; an expired one is refused with 401", async () => {
    const token = await provider.mint("ada", audience);
    const headers = { authorization: `Bearer ${token}` };
    const projects = (await (await fetch(`${system.url}/api/projects`, { headers })).json()) as { projects: Array<{ name: string }> };
    expect(projects.projects.map((project) => project.name)).toContain("Ada's plans");
    expect((await fetch(`${system.url}/v1/models`, { headers })).status).toBe(200);
    const ping = await fetch(`${system.url}/mcp`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(ping.status).toBe(200);
    const now = Math.floor(Date.now() / 1000);
    const expired = await provider.craft({ sub: "ada", aud: audience, email: "ada@example.com", iat: now - 7200, exp: now - 3600 });
    for (const path of ["/api/projects", "/v1/models"]) expect((await fetch(`${system.url}${path}`, { headers: { authorization: `Bearer ${expired}` } })).status).toBe(401);
  });
});
