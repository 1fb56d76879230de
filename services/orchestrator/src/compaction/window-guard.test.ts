/**
 * The staged compaction behind the loop's context guard (docs/models.md "Compaction"), in memory: a fake model
 * writes the hand-off summaries and fake tools answer the re-reads of the workflow's files.
 */
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { isCompactionMarker, toolDefinitionsForModel, type LoadedSkill, type ToolResult } from "@agent-orchestrator/shared/wire";
import { estimateTokens } from "../loop/context-budget.js";
import type { ToolCaller } from "../loop/tool-caller.js";
import { InMemoryModel, type InMemoryAnswer } from "../testing/in-memory-model.js";
import { compactedView } from "./compacted-view.js";
import { WindowGuard } from "./window-guard.js";

const skillPath = "{project-root}/.claude/skills/bmad-create-epics-and-stories";
const stepPath = `${skillPath}/steps/step-02-design-epics.md`;
const epicsPath = "{planning_artifacts}/epics.md";
const disk: Record<string, string> = {
  [stepPath]: "# Step 2: Design Epics\nDesign the epic list with the user. STEP-TWO-TEXT",
  [epicsPath]: "---\nstepsCompleted: [1]\n---\n# Epics\n## Epic 1: Sign-in",
};
const skill: LoadedSkill = {
  success: true,
  name: "bmad-create-epics-and-stories",
  description: "Break requirements into epics and user stories.",
  path: skillPath,
  kind: "workflow",
  instructions: "# Create Epics and Stories\nStep-file architecture. SKILL-TEXT",
  customization: {},
  variables: {},
  facts: [],
  files: [stepPath],
  notes: [],
};

/** Tools that read from `disk` and load the one skill; every call recorded. */
function diskTools() {
  const calls: Array<{ name: string; args: unknown; callId: string }> = [];
  const tools: ToolCaller = {
    call(name, callId, _context, args) {
      calls.push({ name, args, callId });
      if (name === "load_skill") return Promise.resolve(skill);
      const path = (args as { file_path: string }).file_path;
      // the tool-runner's verdict on a protected name, whoever asks (docs/security.md case 271)
      if (path.endsWith("/.env")) return Promise.resolve({ success: false, error: { code: "PROTECTED_PATH", message: "Access denied" } });
      const content = disk[path];
      const result: ToolResult = content === undefined ? { success: false, error: { code: "FILE_NOT_FOUND", message: "File not found" } } : { success: true, content };
      return Promise.resolve(result);
    },
  };
  return { tools, calls };
}

const call = (id: string, name: string, args: Record<string, unknown>): ChatCompletionMessageParam => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
});
const result = (id: string, content: string): ChatCompletionMessageParam => ({ role: "tool", tool_call_id: id, content });

const system: ChatCompletionMessageParam = { role: "system", content: "ACTIVATION of the PM agent." };
const toolDefinitions = toolDefinitionsForModel(["read_file", "save_output"]);

/** A workflow in progress: the skill loaded, step 2 read, the epics written, and a long exchange of words. */
function workflowConversation(wordsChars: number, resultChars: number): ChatCompletionMessageParam[] {
  return [
    system,
    { role: "user", content: "create the epics and stories" },
    call("c1", "load_skill", { name: "bmad-create-epics-and-stories" }),
    result("c1", `{"success":true,"instructions":"${"i".repeat(resultChars)}"}`),
    call("c2", "read_file", { file_path: stepPath }),
    result("c2", `{"success":true,"content":"${"s".repeat(resultChars)}"}`),
    { role: "assistant", content: `Which users matter most? ${"w".repeat(wordsChars)}` },
    { role: "user", content: "Shop owners, then their customers." },
    call("c3", "save_output", { file_path: epicsPath, content: "# Epics\n## Epic 1: Sign-in" }),
    result("c3", `{"success":true,"path":"${epicsPath}"}`),
    { role: "assistant", content: `Epic 1 is written. ${"x".repeat(wordsChars)} Continue with epic 2?` },
    { role: "user", content: "C, and name epic 2 Checkout" },
  ];
}

function guard(summarizer: InMemoryModel, tools = diskTools().tools) {
  return new WindowGuard({
    window: { tokens: 4_000, outputReserve: 500 },
    thresholdPercent: 80,
    summarizer,
    summarizerWindow: { tokens: 4_000, outputReserve: 500 },
    files: { tools, context: { session_id: "s1", bundle_path: "", project_id: "p1", user: "ada", agent_id: "bmm/pm" }, callPrefix: "run1:1:compaction" },
    now: () => new Date("2026-11-28T10:00:00.000Z"),
  });
}

const signal = new AbortController().signal;
const summaryAnswer: InMemoryAnswer = { text: "Goal: epics for the shop. Step 2 of bmad-create-epics-and-stories. Users: shop owners, then customers.", usage: { prompt_tokens: 900, completion_tokens: 40, total_tokens: 940 } };

describe("WindowGuard", () => {
  it("sends the conversation as it is while it is below the threshold", async () => {
    const conversation = workflowConversation(100, 100);
    const prepared = await guard(new InMemoryModel([])).prepare(conversation, toolDefinitions, signal);
    expect(prepared.compaction).toBeUndefined();
    expect(prepared.messages).toEqual(conversation);
  });

  it("first turns old tool results into stubs when that is enough, and writes no summary", async () => {
    const summarizer = new InMemoryModel([]);
    const conversation = workflowConversation(100, 6_000);
    const prepared = await guard(summarizer).prepare(conversation, toolDefinitions, signal);
    const marker = prepared.compaction?.marker;
    expect(marker?.compaction).toMatchObject({ stage: "tool_results", reason: "threshold", kept_from: 10, at: "2026-11-28T10:00:00.000Z" });
    expect(marker?.compaction.before_tokens).toBeGreaterThan(3_200);
    expect(marker?.compaction.after_tokens).toBeLessThan(2_400);
    expect(summarizer.requests).toHaveLength(0);
    expect(prepared.messages[3]?.content).toMatch(/^\[Compacted: the result of load_skill\(\{"name":"bmad-create-epics-and-stories"\}\)/);
    expect(prepared.messages.at(-1)).toEqual({ role: "user", content: "C, and name epic 2 Checkout" });
  });

  it("writes a hand-off when stubs are not enough: the activation once, the summary, the latest user message, the step and skill files and the changed file read again", async () => {
    const summarizer = new InMemoryModel([summaryAnswer]);
    const { tools, calls } = diskTools();
    const conversation = workflowConversation(6_000, 200);
    const prepared = await guard(summarizer, tools).prepare(conversation, toolDefinitions, signal);
    const compaction = prepared.compaction;
    expect(compaction?.marker.compaction).toMatchObject({ stage: "summary", reason: "threshold", kept_from: conversation.length - 1 });
    expect(compaction?.usage).toEqual(summaryAnswer.usage);
    // the summary's writer gets a transcript and no tools
    expect(summarizer.requests[0]?.tools).toEqual([]);
    const transcript = String(summarizer.requests[0]?.messages[1]?.content);
    for (const said of ["USER: create the epics and stories", 'AGENT CALLS load_skill {"name":"bmad-create-epics-and-stories"}', "USER: C, and name epic 2 Checkout"]) expect(transcript).toContain(said);

    const [first, handoff, ...after] = prepared.messages;
    expect(first).toBe(system);
    expect(after).toEqual([]);
    expect(handoff?.role).toBe("user");
    const text = String(handoff?.content);
    for (const expected of [summaryAnswer.text ?? "", "> C, and name epic 2 Checkout", "STEP-TWO-TEXT", "SKILL-TEXT", "stepsCompleted: [1]", `- ${epicsPath}`]) expect(text).toContain(expected);
    expect(prepared.messages.filter((message) => JSON.stringify(message).includes("ACTIVATION"))).toHaveLength(1);
    expect(compaction?.marker.compaction.after_tokens).toBeLessThan(2_400);
    // the files were read with the chat's context, under the turn's names
    expect(calls.map((made) => [made.name, made.callId])).toEqual([
      ["load_skill", "run1:1:compaction:1"],
      ["read_file", "run1:1:compaction:2"],
      ["read_file", "run1:1:compaction:3"],
    ]);
    // every later call builds the same prompt from the stored marker
    const stored = [...conversation, compaction?.marker as unknown as ChatCompletionMessageParam];
    expect([system, ...compactedView(stored.slice(1))]).toEqual(prepared.messages);
    expect(isCompactionMarker(compaction?.marker)).toBe(true);
  });

  it("leaves out a file the chat may not read, named by a path the model wrote (docs/security.md case 271)", async () => {
    const { tools, calls } = diskTools();
    const conversation = [...workflowConversation(6_000, 200), call("c9", "save_output", { file_path: "{project-root}/.env", content: "OPENAI_API_KEY=x" }), result("c9", '{"success":false}')];
    conversation.push({ role: "user", content: "go on" });
    const prepared = await guard(new InMemoryModel([summaryAnswer]), tools).prepare(conversation, toolDefinitions, signal);
    const handoff = String(prepared.messages[1]?.content);
    expect(calls.find((made) => made.name === "read_file" && (made.args as { file_path: string }).file_path === "{project-root}/.env")).toBeDefined();
    expect(handoff).not.toContain("## A file this chat changed: {project-root}/.env");
    expect(handoff).toContain("stepsCompleted: [1]");
  });

  it("compacts with a hand-off when the provider refused the prompt, whatever the count", async () => {
    const summarizer = new InMemoryModel([summaryAnswer]);
    const prepared = await guard(summarizer).prepare(workflowConversation(100, 100), toolDefinitions, signal, { force: true });
    expect(prepared.compaction?.marker.compaction).toMatchObject({ stage: "summary", reason: "overflow" });
  });

  it("compacts without a summary when its writer fails, but a cancel stops the compaction", async () => {
    const failing = new InMemoryModel([{ fail: new AppError("MODEL_UNAVAILABLE", "down") }]);
    const prepared = await guard(failing).prepare(workflowConversation(6_000, 200), toolDefinitions, signal);
    expect(String(prepared.messages[1]?.content)).toContain("no summary could be written");
    expect(String(prepared.messages[1]?.content)).toContain("STEP-TWO-TEXT");

    const cancelled = new InMemoryModel([{ fail: new AppError("CANCELLED", "The turn was cancelled") }]);
    await expect(guard(cancelled).prepare(workflowConversation(6_000, 200), toolDefinitions, signal)).rejects.toMatchObject({ code: "CANCELLED" });
  });

  it("does not compact again in the same turn until the prompt has grown, and keeps every prompt within the window", async () => {
    // an activation so large that no compaction brings the prompt below the threshold
    const large: ChatCompletionMessageParam = { role: "system", content: "A".repeat(10_400) };
    const summarizer = new InMemoryModel([summaryAnswer, summaryAnswer]);
    const windowGuard = guard(summarizer);
    const fixed = Math.ceil(JSON.stringify(toolDefinitions).length / 4) + 64;
    const conversation: ChatCompletionMessageParam[] = [large, { role: "user", content: "go" }, { role: "assistant", content: "a".repeat(2_400) }, { role: "user", content: "more" }];
    const first = await windowGuard.prepare(conversation, toolDefinitions, signal);
    expect(first.compaction?.marker.compaction.after_tokens).toBeGreaterThan(3_200);
    conversation.push(first.compaction?.marker as unknown as ChatCompletionMessageParam, { role: "assistant", content: "y".repeat(400) }, { role: "user", content: "and?" });
    const second = await windowGuard.prepare(conversation, toolDefinitions, signal);
    expect(second.compaction).toBeUndefined();
    expect(estimateTokens(second.messages) + fixed).toBeLessThanOrEqual(3_500);
    conversation.push({ role: "assistant", content: "z".repeat(2_000) }, { role: "user", content: "again" });
    const third = await windowGuard.prepare(conversation, toolDefinitions, signal);
    expect(third.compaction?.marker.compaction.stage).toBe("summary");
    expect(summarizer.requests).toHaveLength(2);
    expect(estimateTokens(third.messages) + fixed).toBeLessThanOrEqual(3_500);
  });
});
