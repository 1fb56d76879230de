/**
 * Prompts providers can cache (docs/models.md "Prompt caching"): for each kind of agent the system runs, the
 * system message and the tool list of a model call are the same bytes in two chats (different sessions) and in
 * every call of a chat's turns, and today's date is not in them but in a note of its own after the system prompt.
 * Kinds: a 4.x agent, a 6.2 XML agent and a 6.12 skill agent from their installers' real installs
 * (test/support/bmad-install.ts), a 6.0 alpha XML agent (the sample bundle of bmad/) and a 6.x source agent
 * (`*.agent.yaml`, written here in BMAD's source form) from a BMAD_ROOT made for this test. The prompt builders hold no date at all, whatever the day
 * (services/orchestrator/src/prompt/*.test.ts, with a skill loaded on two different days).
 */
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import type { ChatRequestBody, RecordedRequest, ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { endsWithDateNote, withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import { repoRoot } from "@agent-orchestrator/testing/service-processes";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

/** A 6.x agent in BMAD's source form, in a bundle of its own beside the repository's sample bundle. */
const sourceAgent = `agent:
  metadata:
    id: source-coach
    name: Sol
    title: Source Coach
    icon: "🌞"
  persona:
    role: Coach who turns notes into a plan
    identity: A planner who likes short lists.
    communication_style: Brief and warm.
    principles:
      - One step at a time.
  critical_actions:
    - "Load into memory {bundle-root}/config.yaml and set variables: user_name, communication_language"
    - "ALWAYS communicate in {communication_language}"
  menu:
    - trigger: plan
      workflow: "{bundle-root}/workflows/plan/workflow.yaml"
      description: Make a plan
`;

const sourceBundle = `type: bundle
name: source-studio
version: 1.0.0
description: One agent in BMAD's source form.
agents:
  - id: source-coach
    name: Sol
    title: Source Coach
    file: agents/source-coach.agent.yaml
    entry_point: true
resources:
  config: config.yaml
`;

/** `read <path>`: read_file, then an answer; anything else: an answer. */
function respond(request: ChatRequestBody): ScriptedTurn {
  const lastUser = request.messages.findLastIndex((message) => message.role === "user");
  const said = withoutSystemNote(String(request.messages[lastUser]?.content ?? ""));
  const answered = request.messages.slice(lastUser + 1).some((message) => message.role === "tool");
  if (said.startsWith("read ") && !answered) return { toolCalls: [{ name: "read_file", arguments: { file_path: said.slice("read ".length) } }] };
  return { text: "Noted." };
}

/** What a provider's prompt cache keys on before the conversation: the system message(s) and the tool list, as sent. */
function prefixOf(request: RecordedRequest): string {
  const systemMessages = request.body.messages.filter((message) => message.role === "system");
  return JSON.stringify({ system: systemMessages, tools: request.body.tools });
}

async function chat(system: TestSystem, agentId: string, message: string, sessionId?: string): Promise<string> {
  const response = await fetch(`${system.url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ agent_id: agentId, message, ...(sessionId ? { session_id: sessionId } : {}) }),
  });
  const body = (await response.json()) as { success: boolean; session_id: string; error?: unknown };
  expect(body, JSON.stringify(body.error)).toMatchObject({ success: true });
  return body.session_id;
}

interface Kind {
  kind: string;
  /** the agent's format as the registry reports it */
  format: string;
  agentId: string;
  /** a file the agent may read, for a turn with a tool round */
  file: string;
  root: () => Promise<string>;
}

let madeRoot: string | undefined;

/** The repository's bmad/ sample (a 6.x XML bundle agent) and a bundle with a 6.x source agent. */
async function bundlesRoot(): Promise<string> {
  madeRoot ??= await mkdtemp(join(tmpdir(), "prompt-prefix-"));
  const bundles = join(madeRoot, "bmad", "custom", "bundles");
  await cp(join(repoRoot, "bmad"), join(madeRoot, "bmad"), { recursive: true });
  await mkdir(join(bundles, "source-studio", "agents"), { recursive: true });
  await writeFile(join(bundles, "source-studio", "bundle.yaml"), sourceBundle);
  await writeFile(join(bundles, "source-studio", "agents", "source-coach.agent.yaml"), sourceAgent);
  await writeFile(join(bundles, "source-studio", "config.yaml"), "user_name: Ada\ncommunication_language: English\n");
  return madeRoot;
}

const kinds: Kind[] = [
  { kind: "a 4.x agent", format: "v4", agentId: "bmm/analyst", file: ".bmad-core/core-config.yaml", root: () => ensureBmadInstall({ version: "4.44.3", tool: "claude-code" }) },
  { kind: "a 6.0 alpha XML agent", format: "v6-early", agentId: "idea-coach", file: "{bundle-root}/config.yaml", root: bundlesRoot },
  { kind: "a 6.2 XML agent", format: "v6", agentId: "bmm/analyst", file: "{project-root}/_bmad/bmm/config.yaml", root: () => ensureBmadInstall({ version: "6.2.0", tool: "claude-code" }) },
  { kind: "a 6.x source agent (*.agent.yaml)", format: "v6-source", agentId: "source-coach", file: "{bundle-root}/config.yaml", root: bundlesRoot },
  { kind: "a 6.12 skill agent", format: "skill", agentId: "bmm/analyst", file: "{project-root}/_bmad/bmm/config.yaml", root: () => ensureBmadInstall({ version: "6.12.0", tool: "claude-code" }) },
];

afterAll(async () => {
  if (madeRoot) await rm(madeRoot, { recursive: true, force: true });
});

describe.each(kinds)("the prompt prefix of $kind", ({ format, agentId, file, root }) => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await startTestSystem({ responder: respond, env: { BMAD_ROOT: await root() } });
  }, 240_000);

  afterAll(() => system?.stop());

  it("is the same bytes in two chats and in every call of a chat's turns, with today's date in a note of its own after the system prompt", async () => {
    const agent = (await (await fetch(`${system.url}/api/agents/${agentId}`)).json()) as { agent: { format?: string } };
    expect(agent.agent.format).toBe(format);

    const first = await chat(system, agentId, "hello");
    const firstChat = system.model.requests.length;
    await chat(system, agentId, `read ${file}`, first);
    await chat(system, agentId, "thank you", first);
    const second = await chat(system, agentId, "hello again");
    expect(second).not.toBe(first);
    const requests = system.model.requests;
    // hello; read_file and the answer after it; thank you; the second chat's hello
    expect(requests).toHaveLength(firstChat + 4);

    const prefix = prefixOf(requests[0]!);
    for (const request of requests) expect(prefixOf(request)).toBe(prefix);
    // the system does not put the day in it (an installer's config may carry the date it was written, the same every day)
    expect(prefix).not.toMatch(/today's date is \d/i);
    expect(prefix).not.toContain(first);
    expect(prefix).not.toContain(second);

    // the date ends the user's first message, right after the system prompt (two user messages in a row would break alternation)
    expect(requests[0]!.body.messages.slice(1)).toEqual([{ role: "user", content: expect.stringMatching(endsWithDateNote("hello")) }]);
    // a later turn's call repeats the earlier call's messages as they were sent: the conversation is cached too
    const earlier = requests[firstChat + 1]!.body.messages;
    expect(JSON.stringify(requests[firstChat + 2]!.body.messages.slice(0, earlier.length))).toBe(JSON.stringify(earlier));
  });
});
