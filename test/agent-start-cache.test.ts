/**
 * The agent's start kept by the orchestrator (docs/operations.md "What an orchestrator keeps"): the four services as processes over a
 * BMAD_ROOT of their own. A second turn does not read the agent's config again; an edited config is
 * fingerprinted by the registry, whose `registry.changed` makes the next turns read it; a critical file the
 * sandbox denies fails every turn, since a failed start is never kept.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeJson } from "@agent-orchestrator/shared/runtime";
import { RegistryChanged, subjects } from "@agent-orchestrator/shared/wire";
import { natsAdminUser } from "@agent-orchestrator/testing/nats-users";
import { testNatsPasswords } from "@agent-orchestrator/testing/nats-harness";
import { lastMessage, type ChatRequestBody, type ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

let system: TestSystem;
let root: string;
let nats: NatsConnection;
/** the files each start asked the tool-runner for, by agent id */
const startReads = new Map<string, string[]>();
const changes: RegistryChanged[] = [];

const agentFile = (id: string, name: string, criticalFile: string) =>
  [
    "```xml",
    `<agent id="${id}" name="${name}" title="${name} Title" icon="🧩">`,
    `  <persona><role>r</role><identity>i</identity><communication_style>c</communication_style><principles>p</principles></persona>`,
    `  <critical-actions><i>Load into memory {bundle-root}/${criticalFile} and set variables</i><i>Greet {user_name}</i></critical-actions>`,
    `  <cmds><c cmd="*help">Help</c></cmds>`,
    "</agent>",
    "```",
    "",
  ].join("\n");

const bundle = (folder: string, id: string, criticalFile: string): Record<string, string> => ({
  [`bmad/custom/bundles/${folder}/bundle.yaml`]: ["type: standalone", `name: ${folder}`, "version: 1.0.0", "description: d", "agent:", `  id: ${id}`, `  name: ${id}`, "  file: agent.md", ""].join("\n"),
  [`bmad/custom/bundles/${folder}/agent.md`]: agentFile(id, id, criticalFile),
});

async function write(files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
}

const respond = (request: ChatRequestBody): ScriptedTurn => ({ text: `ok ${withoutSystemNote(String(lastMessage(request)?.content ?? ""))}` });

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "ao-start-cache-"));
  await write({
    ...bundle("keeper", "keeper", "config.yaml"),
    "bmad/custom/bundles/keeper/config.yaml": "user_name: Ada\n",
    ...bundle("editor", "editor", "config.yaml"),
    "bmad/custom/bundles/editor/config.yaml": "user_name: Ada\n",
    ...bundle("locked", "locked", ".netrc"),
    "bmad/custom/bundles/locked/.netrc": "machine example.com password hunter2\n",
  });
  // a kept agent or start outlives the test, so only `registry.changed` can make a turn see the edit
  system = await startTestSystem({
    responder: respond,
    env: { BMAD_ROOT: root, REGISTRY_DEBOUNCE_MS: "50", REGISTRY_POLL_MS: "200", REGISTRY_CACHE_MAX_AGE_MS: "600000" },
  });
  nats = await connect({ servers: system.env["NATS_URL"], user: natsAdminUser, pass: testNatsPasswords.admin });
  // a plain subscriber gets a copy of every request the tool-runners answer
  nats.subscribe(subjects.tool("read_file"), {
    callback: (_error, message) => {
      const request = JSON.parse(new TextDecoder().decode(message.data)) as { context: { agent_start?: boolean; agent_id?: string }; arguments: { file_path: string } };
      const agent = request.context.agent_id;
      if (request.context.agent_start && agent) startReads.set(agent, [...(startReads.get(agent) ?? []), request.arguments.file_path]);
    },
  });
  nats.subscribe(subjects.registryChanged, { callback: (_error, message) => changes.push(decodeJson(message.data, RegistryChanged)) });
  await nats.flush();
}, 60_000);

afterAll(async () => {
  await nats?.drain();
  await system?.stop();
  await rm(root, { recursive: true, force: true });
});

async function chat(agentId: string, message: string): Promise<{ success: boolean; error?: { code: string; message: string } }> {
  const response = await fetch(`${system.url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ agent_id: agentId, message }),
  });
  return (await response.json()) as { success: boolean; error?: { code: string; message: string } };
}

/** The system prompt the model got for the turn whose user said `message`. */
const systemPromptFor = (message: string): string => {
  const request = system.model.requests.find((entry) => entry.body.messages.some((part) => part.role === "user" && withoutSystemNote(String(part.content)) === message));
  return String(request?.body.messages[0]?.content);
};

async function eventually(check: () => Promise<void>, timeoutMs = 5_000): Promise<void> {
  const started = Date.now();
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() - started > timeoutMs) throw error;
      await new Promise((wait) => setTimeout(wait, 50));
    }
  }
}

describe("the agent's start, kept between turns", () => {
  it("reads the critical config through the tool-runner once, then starts the next turns from what it kept", async () => {
    expect(await chat("keeper", "first")).toMatchObject({ success: true });
    expect(await chat("keeper", "second")).toMatchObject({ success: true });
    expect(startReads.get("keeper")).toEqual(["{bundle-root}/config.yaml"]);
    expect(systemPromptFor("first")).toContain("- Greet Ada");
    expect(systemPromptFor("second")).toContain("- Greet Ada");
  });

  it("reads an edited config again once the registry has announced the change", async () => {
    expect(await chat("editor", "before the edit")).toMatchObject({ success: true });
    expect(systemPromptFor("before the edit")).toContain("- Greet Ada");
    await writeFile(join(root, "bmad/custom/bundles/editor/config.yaml"), "user_name: Grace\n");
    await eventually(async () => expect(changes.some((change) => change.updated.includes("editor"))).toBe(true));
    let attempt = 0;
    await eventually(async () => {
      const message = `after the edit ${++attempt}`;
      expect(await chat("editor", message)).toMatchObject({ success: true });
      expect(systemPromptFor(message)).toContain("- Greet Grace");
    });
    expect(startReads.get("editor")).toEqual(["{bundle-root}/config.yaml", "{bundle-root}/config.yaml"]);
  });

  it("fails every turn whose critical file the sandbox denies: a failed start is never kept", async () => {
    for (const message of ["one", "two"]) {
      const reply = await chat("locked", message);
      expect(reply).toMatchObject({ success: false, error: { code: "AGENT_INIT_FAILED", message: expect.stringContaining("{bundle-root}/.netrc") } });
    }
    expect(startReads.get("locked")).toEqual(["{bundle-root}/.netrc", "{bundle-root}/.netrc"]);
  });
});
