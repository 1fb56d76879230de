/**
 * An agent's greeting when it is chosen, on real installs made by BMAD's own installer (user name `Ada`,
 * test/support/bmad-install.ts): `POST /api/sessions` answers with Mary's greeting (the configured user's name, her
 * persona, the menu items her install ships, in her release's own form) built without a model call, stores it as the
 * chat's first message, and the first turn of `POST /api/chat` shows it to the model as its own earlier answer,
 * before the user's message. `GET /api/agents/:id/greeting` gives the same greeting and starts nothing.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultInstallUserName, ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { dateNoteAlone } from "@agent-orchestrator/testing/system-note";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

interface Release {
  version: string;
  /** the first line of the greeting: a skill agent leads with its icon */
  opening: string;
  /** the menu lines the install's own files give, in order */
  menuLines(root: string): Promise<string[]>;
}

const releases: Release[] = [
  {
    version: "6.0.4",
    opening: `Hello ${defaultInstallUserName}! I'm Mary, your Business Analyst.`,
    // the XML agent's `<item>` texts, each already led by its code (`[BP] Brainstorm Project: …`)
    menuLines: async (root) => [...(await readFile(join(root, "_bmad/bmm/agents/analyst.md"), "utf8")).matchAll(/<item [^>]*>([^<]+)<\/item>/g)].map((match) => match[1] ?? ""),
  },
  {
    version: "6.12.0",
    opening: `📊 Hello ${defaultInstallUserName}! I'm Mary, your Business Analyst.`,
    // the skill's `[[agent.menu]]` entries, shown as `[CODE] description`
    menuLines: async (root) => {
      const toml = await readFile(join(root, ".claude/skills/bmad-agent-analyst/customize.toml"), "utf8");
      return [...toml.matchAll(/code = "(\w+)"\ndescription = "([^"]*)"/g)].map((match) => `[${match[1] ?? ""}] ${match[2] ?? ""}`);
    },
  },
];

const sendJson = async (system: TestSystem, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${system.url}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
};

describe.each(releases)("Mary's greeting on a real $version install", (release) => {
  let system: TestSystem;
  let menu: string[];

  beforeAll(async () => {
    const root = await ensureBmadInstall({ version: release.version, tool: "claude-code" });
    menu = await release.menuLines(root);
    system = await startTestSystem({ responder: () => ({ text: "Happy to help." }), env: { BMAD_ROOT: root } });
  }, 240_000);

  afterAll(() => system?.stop());

  it("starts a chat with Mary's greeting: the user's name, her persona and her real menu, without a model call", async () => {
    expect(menu.length).toBeGreaterThan(3);
    // the model calls this test's chat makes, whatever ran before it
    const calls = system.model.requests.length;
    const { status, body } = await sendJson(system, "POST", "/api/sessions", { agent_id: "bmm/analyst" });
    expect(status).toBe(201);
    expect(body).toMatchObject({ success: true, project_id: expect.any(String), greeting: { user_name: defaultInstallUserName, language: "English" } });
    const text = String(body["greeting"].text);
    expect(text.split("\n")[0]).toBe(release.opening);
    expect(text).toContain(`Here is what I can do:\n${menu.map((line, index) => `${index + 1}. ${line}`).join("\n")}\n`);
    expect(body["greeting"].menu).toHaveLength(menu.length);
    expect(text).toContain("bmad-help");
    expect(system.model.requests).toHaveLength(calls);

    const chat = await sendJson(system, "GET", `/api/sessions/${String(body["session_id"])}`);
    expect(chat.body["session"]).toMatchObject({ agent_id: "bmm/analyst", status: "idle", turns: 0, messages: [{ role: "assistant", content: text }] });
  });

  it("continues with the first turn, whose model request has the greeting as the assistant message before the user's", async () => {
    const started = await sendJson(system, "POST", "/api/sessions", { agent_id: "bmm/analyst", project_id: "default" });
    const sessionId = String(started.body["session_id"]);
    const turn = await sendJson(system, "POST", "/api/chat", { agent_id: "bmm/analyst", session_id: sessionId, message: "1" });
    expect(turn.body).toMatchObject({ success: true, session_id: sessionId, project_id: started.body["project_id"], response: "Happy to help." });
    const messages = system.model.requests.at(-1)?.body.messages ?? [];
    expect(messages[0]?.role).toBe("system");
    // the conversation starts with the greeting, so the note of the day is a user message of its own before it
    expect(messages.slice(1)).toEqual([
      { role: "user", content: expect.stringMatching(dateNoteAlone) },
      { role: "assistant", content: started.body["greeting"].text },
      { role: "user", content: "1" },
    ]);
    const chat = await sendJson(system, "GET", `/api/sessions/${sessionId}`);
    expect(chat.body["session"]).toMatchObject({ status: "completed", turns: 1, title: "1" });
  });

  it("previews the same greeting without starting a chat", async () => {
    const before = await sendJson(system, "GET", "/api/sessions");
    const preview = await sendJson(system, "GET", "/api/agents/bmm/analyst/greeting");
    expect(preview.status).toBe(200);
    expect(preview.body["greeting"].text.split("\n")[0]).toBe(release.opening);
    expect(preview.body["greeting"].menu).toHaveLength(menu.length);
    const after = await sendJson(system, "GET", "/api/sessions");
    expect(after.body["sessions"]).toHaveLength(before.body["sessions"].length);
  });
});
