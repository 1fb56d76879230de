import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import type { CompactionMarker, CompactionStage } from "@agent-orchestrator/shared/wire";
import { compactedView } from "./compacted-view.js";
import { keptFrom } from "./kept-from.js";

const call = (id: string, name: string, args: Record<string, unknown>): ChatCompletionMessageParam => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
});
const result = (id: string, content: string): ChatCompletionMessageParam => ({ role: "tool", tool_call_id: id, content });
const marker = (stage: CompactionStage, kept_from: number, content = ""): ChatCompletionMessageParam =>
  ({ role: "system", content, compaction: { stage, kept_from, before_tokens: 9, after_tokens: 3, reason: "threshold", at: "2026-11-28T00:00:00.000Z" } }) satisfies CompactionMarker as unknown as ChatCompletionMessageParam;

const step = "{project-root}/.claude/skills/bmad-create-epics-and-stories/steps/step-02-design-epics.md";
const conversation: ChatCompletionMessageParam[] = [
  { role: "user", content: "create the epics" },
  call("c1", "read_file", { file_path: step }),
  result("c1", `{"success":true,"content":"${"s".repeat(5_000)}"}`),
  call("c2", "save_output", { file_path: "{planning_artifacts}/epics.md", content: "e".repeat(3_000) }),
  result("c2", '{"success":true,"path":"{planning_artifacts}/epics.md"}'),
  { role: "assistant", content: "Epic 1 is drafted. Continue?" },
  { role: "user", content: "C" },
  call("c3", "read_file", { file_path: "{planning_artifacts}/prd.md" }),
  result("c3", `{"success":true,"content":"${"p".repeat(4_000)}"}`),
];

describe("compactedView", () => {
  it("is the conversation itself, message for message, while it has no marker", () => {
    const view = compactedView(conversation);
    expect(view).toEqual(conversation);
    view.forEach((message, index) => expect(message).toBe(conversation[index]));
  });

  it("reads old tool results as stubs that say what they were and how to read them again, the latest round whole", () => {
    const kept = keptFrom(conversation, "tool_results");
    expect(kept).toBe(7);
    const view = compactedView([...conversation, marker("tool_results", kept)]);
    expect(view).toHaveLength(conversation.length);
    expect(view[2]).toEqual({
      role: "tool",
      tool_call_id: "c1",
      content: `[Compacted: the result of read_file({"file_path":"${step}"}), 5,029 characters, was removed to save context. Call read_file again with the same arguments if you need it.]`,
    });
    // a written document's text becomes a note; the call keeps its path and stays a JSON object
    const written = view[3] as { tool_calls: Array<{ function: { arguments: string } }> };
    expect(JSON.parse(written.tool_calls[0]?.function.arguments ?? "")).toEqual({
      file_path: "{planning_artifacts}/epics.md",
      content: "[3,000 characters, removed to save context; read_file {planning_artifacts}/epics.md to see the file as it is now]",
    });
    // a short result, the user's words and the round the model is about to read stay as they are
    expect(view[4]).toBe(conversation[4]);
    expect(view[6]).toBe(conversation[6]);
    expect(view[8]).toBe(conversation[8]);
    // every call still has its result
    expect(view.filter((message) => message.role === "tool").map((message) => (message as { tool_call_id: string }).tool_call_id)).toEqual(["c1", "c2", "c3"]);
  });

  it("starts from the latest hand-off: the messages it replaced are gone, the round after it stays, and no user message follows it", () => {
    const kept = keptFrom(conversation, "summary");
    expect(kept).toBe(7);
    const view = compactedView([...conversation, marker("summary", kept, "HAND-OFF")]);
    expect(view).toEqual([{ role: "user", content: "HAND-OFF" }, conversation[7], conversation[8]]);
  });

  it("builds the same prompt from the markers on every later call, the messages after them added", () => {
    const stored = [...conversation, marker("summary", 7, "HAND-OFF"), { role: "assistant" as const, content: "Here is epic 2." }, { role: "user" as const, content: "next" }];
    const once = compactedView(stored);
    expect(once.slice(0, 3)).toEqual(compactedView([...conversation, marker("summary", 7, "HAND-OFF")]));
    expect(JSON.stringify(compactedView(stored))).toBe(JSON.stringify(once));
    expect(once.at(-1)).toEqual({ role: "user", content: "next" });
  });

  it("keeps no user message after a hand-off made before the turn's first call: the hand-off carries it", () => {
    const waiting = [...conversation.slice(0, 7)];
    expect(keptFrom(waiting, "summary")).toBe(waiting.length);
    expect(keptFrom(waiting, "tool_results")).toBe(6);
  });
});
