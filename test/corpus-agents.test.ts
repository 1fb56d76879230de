/**
 * The whole system against the real, unmodified BMAD Method corpus install (6.0.0-alpha.7 from npm, installed
 * at test time into the install cache: a project root holding a `bmad/` tree, see test/support/corpus.ts): its
 * agents are listed, a v6 agent starts (its config loaded by the system), runs a real workflow through
 * preload_workflow, and saves to its `{output_folder}`, which is the folder of the project its config names
 * (`{project-root}/docs`), not a chat's own folder (docs/projects.md).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastMessage, type ChatRequestBody, type ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import { corpusAgentIds, corpusInstall, corpusUserName } from "@agent-orchestrator/testing/corpus";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

const productBrief = "{project-root}/bmad/bmm/workflows/1-analysis/product-brief/workflow.yaml";
let system: TestSystem;

function respond(request: ChatRequestBody): ScriptedTurn {
  const last = lastMessage(request);
  const said = withoutSystemNote(String(request.messages.filter((message) => message.role === "user").at(-1)?.content ?? ""));
  if (last?.role === "tool") {
    const result = JSON.parse(String(last.content)) as { success: boolean; files?: Array<{ path: string }>; path?: string };
    if (result.files) return { toolCalls: [{ name: "save_output", arguments: { file_path: "{output_folder}/product-brief.md", content: "# Product brief\n" } }] };
    return { text: `Saved ${result.path ?? "nothing"}` };
  }
  if (said.includes("product-brief")) return { toolCalls: [{ name: "preload_workflow", arguments: { workflow_path: productBrief } }] };
  return { text: "Hello BMad" };
}

// the first run of a machine installs the release from npm (test-prerequisites.ts has usually done it already)
beforeAll(async () => {
  system = await startTestSystem({ responder: respond, env: { BMAD_ROOT: await corpusInstall() } });
}, 300_000);

afterAll(() => system?.stop());

describe("the system on the BMAD corpus", () => {
  it("lists the corpus' 15 installed agents with module ids", async () => {
    const body = (await (await fetch(`${system.url}/api/agents`)).json()) as { agents: Array<{ id: string; bundleName: string; source: string }> };
    expect(body.agents.map((agent) => agent.id).sort()).toEqual([...corpusAgentIds]);
    expect(body.agents.every((agent) => agent.source === "module")).toBe(true);
    const analyst = (await (await fetch(`${system.url}/api/agents/bmm/analyst`)).json()) as { agent: { name: string; menu: Array<{ trigger: string }> } };
    expect(analyst.agent.name).toBe("Mary");
    expect(analyst.agent.menu.map((item) => item.trigger)).toContain("*product-brief");
  });

  it("starts the analyst with its module config loaded by the system and its file's rules in the prompt", async () => {
    const response = await fetch(`${system.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ agent_id: "bmm/analyst", message: "hello" }),
    });
    expect(await response.json()).toMatchObject({ success: true, response: "Hello BMad", iterations: 1 });
    const prompt = String(system.model.requests.at(-1)?.body.messages[0]?.content);
    expect(prompt).toContain("You are Mary, Business Analyst.");
    expect(prompt).toContain("--- {bundle-root}/config.yaml ---\n# BMM Module Configuration");
    expect(prompt).toContain(`- user_name: ${corpusUserName}`);
    expect(prompt).toContain("- output_folder: {project-root}/docs");
    expect(prompt).toContain('When a menu item has workflow="…"');
    expect(prompt).toContain("ALWAYS communicate in English");
  });

  it("runs *product-brief: one preload_workflow brings the real workflow's files, and the brief lands in the project's docs/", async () => {
    const response = await fetch(`${system.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ agent_id: "bmm/analyst", message: "*product-brief" }),
    });
    const body = (await response.json()) as { session_id: string; response: string; iterations: number };
    expect(body).toMatchObject({ response: "Saved {project-root}/docs/product-brief.md", iterations: 3 });
    const preload = system.model.requests
      .flatMap((request) => request.body.messages)
      .filter((message) => message.role === "tool")
      .map((message) => JSON.parse(String(message.content)) as { files?: Array<{ path: string }>; workflow?: { variables: Record<string, string> } })
      .find((result) => result.files);
    const paths = preload?.files?.map((file) => file.path) ?? [];
    expect(paths).toEqual(
      expect.arrayContaining([
        "{bundle-root}/workflows/1-analysis/product-brief/instructions.md",
        "{bundle-root}/workflows/1-analysis/product-brief/template.md",
        "{bundle-root}/workflows/1-analysis/product-brief/checklist.md",
        "{core-root}/tasks/workflow.xml",
      ]),
    );
    expect(preload?.workflow?.variables["output_folder"]).toBe("{project-root}/docs");
    // the chat named no project: the brief is in the user's default project, for the next agent's chat to find
    const brief = await fetch(`${system.url}/api/projects/default/files/docs/product-brief.md?raw`);
    expect(brief.status).toBe(200);
    expect(await brief.text()).toBe("# Product brief\n");
  });
});
