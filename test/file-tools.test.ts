/**
 * The file tools at the grain BMAD's instructions assume (docs/file-tools.md), through the whole system on a
 * real BMAD 6.12 install and the scripted model: a PRD built step by step with append and edit ends
 * byte-identical to the same PRD saved whole at every step; an edit whose old string occurs twice is refused
 * with the count and changes nothing; the front-matter flip is one revision whose diff is that line; find_files
 * finds the PRD in a run folder two levels down; search_files finds a requirement id across the project's
 * documents with line numbers; a runaway regular expression is stopped and the next search works; and none
 * of the new tools reaches outside the project view (docs/security.md cases 155–162).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { toolCallResponder } from "@agent-orchestrator/testing/tool-call-responder";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

const token = "alice-token";
let system: TestSystem;
let project: string;

async function api(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${system.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** One turn of the PM in chat `session` (a new chat when undefined) that makes one tool call; its result as the model saw it. */
async function tool(name: string, args: Record<string, unknown>, session?: string): Promise<{ result: Record<string, unknown>; session: string }> {
  const response = await api("POST", "/api/chat", {
    agent_id: "bmm/pm",
    project_id: project,
    message: `call ${name}\n${JSON.stringify(args)}`,
    ...(session ? { session_id: session } : {}),
  });
  const body = (await response.json()) as { success: boolean; response: string; session_id: string };
  expect(body.success).toBe(true);
  return { result: JSON.parse(body.response) as Record<string, unknown>, session: body.session_id };
}

const raw = async (path: string, revision?: number) =>
  (await api("GET", `/api/projects/${project}/files/${path}?raw${revision === undefined ? "" : `&revision=${revision}`}`)).text();

const front = (steps: number[], status = "draft") => `---\nstepsCompleted: [${steps.join(", ")}]\nstatus: ${status}\n---\n# PRD: Lighthouse\n`;
const section = (step: number) =>
  `\n## Step ${step}\n\nFR-00${step}: the light turns ${step} times a minute.\n` + (step === 3 ? "Every story starts with status: draft.\n" : "") + `${"Detail. ".repeat(40)}\n`;
const steps = Array.from({ length: 10 }, (_, index) => index + 1);
const wholePath = "{planning_artifacts}/runs/whole/prd.md";
const stepsPath = "{planning_artifacts}/runs/steps/prd.md";
const stored = "_bmad-output/planning-artifacts/runs/steps/prd.md";

beforeAll(async () => {
  const root = await ensureBmadInstall({ version: "6.12.0", tool: "claude-code" });
  system = await startTestSystem({ responder: toolCallResponder, env: { BMAD_ROOT: root, AUTH_TOKENS: `alice:${token}` } });
  const created = await api("POST", "/api/projects", { name: "Lighthouse" });
  project = ((await created.json()) as { project: { id: string } }).project.id;
}, 240_000);

afterAll(() => system?.stop());

// in order, also under --sequence.shuffle: the searches look for the PRD the first test builds
describe("file tools on BMAD 6.12", { shuffle: false }, () => {
  it("builds a PRD by append and edit, byte-identical to saving it whole at every step, and the flip is one line", async () => {
    let whole = "";
    let chat: string | undefined;
    for (const step of steps) {
      whole = front(steps.slice(0, step)) + steps.slice(0, step).map(section).join("");
      chat = (await tool("save_output", { file_path: wholePath, content: whole }, chat)).session;
    }
    whole = whole.replace("status: draft\n---", "status: final\n---");
    await tool("save_output", { file_path: wholePath, content: whole }, chat);

    chat = (await tool("save_output", { file_path: stepsPath, content: front([]) })).session;
    for (const step of steps) {
      const appended = await tool("save_output", { file_path: stepsPath, content: section(step), mode: "append" }, chat);
      expect(appended.result).toMatchObject({ success: true, path: `{project-root}/${stored}` });
      const flipped = await tool("edit_file", { file_path: stepsPath, old_string: `stepsCompleted: [${steps.slice(0, step - 1).join(", ")}]`, new_string: `stepsCompleted: [${steps.slice(0, step).join(", ")}]` }, chat);
      expect(flipped.result).toMatchObject({ success: true, replacements: 1, lines: [2] });
    }

    // "status: draft" is in the front matter and in step 3's text: refused with the count, nothing written
    const before = await raw(stored);
    const ambiguous = await tool("edit_file", { file_path: stepsPath, old_string: "status: draft", new_string: "status: final" }, chat);
    expect(ambiguous.result).toMatchObject({ success: false, error: { code: "EDIT_NOT_UNIQUE" } });
    expect(JSON.stringify(ambiguous.result)).toContain("occurs 2 times");
    expect(await raw(stored)).toBe(before);

    // one save, then an append and an edit per step, then the flip
    const final = await tool("edit_file", { file_path: stepsPath, old_string: "status: draft\n---", new_string: "status: final\n---" }, chat);
    expect(final.result).toMatchObject({ success: true, revision: 22 });
    expect(await raw(stored)).toBe(await raw("_bmad-output/planning-artifacts/runs/whole/prd.md"));

    const [last, previous] = [(await raw(stored, 22)).split("\n"), (await raw(stored, 21)).split("\n")];
    expect(last.length).toBe(previous.length);
    expect(last.filter((line, index) => line !== previous[index])).toEqual(["status: final"]);
  });

  it("finds the PRD in a run folder two levels down, newest first", async () => {
    const { result } = await tool("find_files", { pattern: "**/prd.md" });
    const paths = (result["files"] as Array<{ path: string; size: number }>).map((file) => file.path);
    expect(paths).toEqual([`{project-root}/${stored}`, "{project-root}/_bmad-output/planning-artifacts/runs/whole/prd.md"]);
    const under = await tool("find_files", { pattern: "{planning_artifacts}/**/prd.md" });
    expect((under.result["files"] as unknown[]).length).toBe(2);
  });

  it("finds a requirement id across the project's documents with line numbers", async () => {
    await tool("save_output", { file_path: "{planning_artifacts}/architecture.md", content: "# Architecture\n\nThe lamp driver serves FR-007.\n" });
    const { result } = await tool("search_files", { pattern: "FR-007", literal: true, path: "{planning_artifacts}" });
    const hits = result["hits"] as string[];
    expect(hits).toEqual(
      expect.arrayContaining([
        "{project-root}/_bmad-output/planning-artifacts/architecture.md:3: The lamp driver serves FR-007.",
        expect.stringMatching(/^\{project-root\}\/_bmad-output\/planning-artifacts\/runs\/steps\/prd\.md:\d+: FR-007: the light turns 7 times a minute\.$/),
      ]),
    );
    expect(result["files_matched"]).toBe(3);
  });

  it("stops a runaway regular expression with PATTERN_TIMEOUT, and the next search works", async () => {
    const { session } = await tool("save_output", { file_path: "{session-folder}/bait.txt", content: `${"a".repeat(40)}b\n` });
    const started = Date.now();
    const runaway = await tool("search_files", { pattern: "(a+)+$", path: "{session-folder}" }, session);
    console.log(`runaway regular expression answered in ${Date.now() - started} ms (through the gateway, one turn)`);
    expect(runaway.result).toMatchObject({ success: false, error: { code: "PATTERN_TIMEOUT" } });
    const next = await tool("search_files", { pattern: "a+b", path: "{session-folder}" }, session);
    expect(next.result).toMatchObject({ success: true, files_matched: 1 });
  });

  it("keeps the new tools inside the project view and off protected and installed names (docs/security.md cases 155, 159, 160)", async () => {
    const refused = [
      ["edit_file", { file_path: "{project-root}/_bmad/bmm/config.yaml", old_string: "a", new_string: "b" }, "PROTECTED_PATH"],
      ["save_output", { file_path: "{project-root}/.claude/skills/x/SKILL.md", content: "x", mode: "append" }, "PROTECTED_PATH"],
      ["edit_file", { file_path: "{project-root}/../etc/passwd", old_string: "root", new_string: "x" }, "PATH_OUTSIDE_ROOT"],
      ["find_files", { pattern: "**/*", path: "{project-root}/../etc" }, "PATH_OUTSIDE_ROOT"],
      ["search_files", { pattern: "root", path: "/etc" }, "PATH_OUTSIDE_ROOT"],
      ["read_file", { file_path: "{project-root}/.git/config", offset: 1, limit: 5 }, "PROTECTED_PATH"],
    ] as const;
    for (const [name, args, code] of refused) {
      const { result } = await tool(name, args);
      expect({ name, args, error: (result["error"] as { code: string } | undefined)?.code }).toEqual({ name, args, error: code });
    }
    const everything = await tool("find_files", { pattern: "**/*" });
    const listed = (everything.result["files"] as Array<{ path: string }>).map((file) => file.path);
    expect(listed.some((path) => /\/(\.git|\.env|node_modules)(\/|$)/.test(path))).toBe(false);
  });
});
