/**
 * Per-session quota through the whole system (docs/file-tools.md "Quotas"): with SESSION_MAX_FILES=5, a turn that saves six
 * files gets QUOTA_EXCEEDED for the sixth as a tool error, the model reads it, and the turn completes;
 * rewriting one of the five still works.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSse } from "@agent-orchestrator/testing/sse";
import type { ChatRequestBody, ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

let system: TestSystem;

/** Saves f1.md … f6.md one call at a time, then f1.md again, then answers with every outcome in order. */
function respond(request: ChatRequestBody): ScriptedTurn {
  const results = request.messages.filter((message) => message.role === "tool").map((message) => JSON.parse(String(message.content)) as { success: boolean; error?: { code: string } });
  const names = ["f1", "f2", "f3", "f4", "f5", "f6", "f1"];
  const next = names[results.length];
  if (next) return { toolCalls: [{ name: "save_output", arguments: { file_path: `{session-folder}/${next}.md`, content: `content of ${next} #${results.length}` } }] };
  return { text: results.map((result) => (result.success ? "ok" : result.error?.code)).join(",") };
}

beforeAll(async () => {
  system = await startTestSystem({ responder: respond, env: { SESSION_MAX_FILES: "5" } });
}, 60_000);

afterAll(() => system?.stop());

describe("session quota", () => {
  it("refuses the sixth file with a QUOTA_EXCEEDED tool error, allows a rewrite, and completes the turn", async () => {
    const response = await fetch(`${system.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ agent_id: "idea-coach", message: "save six" }),
    });
    const events = await readSse(response);
    const results = events.filter((event) => event.event === "tool_result").map((event) => event.data);
    expect(results[5]).toMatchObject({ success: false, error_code: "QUOTA_EXCEEDED" });
    expect(events.find((event) => event.event === "done")?.data).toMatchObject({ response: "ok,ok,ok,ok,ok,QUOTA_EXCEEDED,ok" });
  });
});
