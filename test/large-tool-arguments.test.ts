/**
 * Large tool-call arguments cannot break a turn (docs/design.md "Limits of a turn"): a save_output of exactly
 * WRITE_MAX_BYTES (1 MiB) is written, one byte more is a CONTENT_TOO_LARGE tool error the model reads,
 * and the turn completes either way. The tool_call events carry a preview, not the megabyte.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSse } from "@agent-orchestrator/testing/sse";
import { lastMessage, type ChatRequestBody, type ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

const mebibyte = 1024 * 1024;
let system: TestSystem;

/** "write <bytes>" saves that many bytes; after the tool's answer the model quotes its outcome. */
function respond(request: ChatRequestBody): ScriptedTurn {
  const last = lastMessage(request);
  if (last?.role === "tool") {
    const result = JSON.parse(String(last.content)) as { success: boolean; error?: { code: string } };
    return { text: result.success ? "saved" : `refused: ${result.error?.code}` };
  }
  const bytes = Number(/write (\d+)/.exec(String(last?.content ?? ""))?.[1] ?? 0);
  return { toolCalls: [{ name: "save_output", arguments: { file_path: "{session-folder}/big.md", content: "a".repeat(bytes) } }] };
}

beforeAll(async () => {
  system = await startTestSystem({ responder: respond });
}, 60_000);

afterAll(() => system?.stop());

async function chat(message: string) {
  const response = await fetch(`${system.url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ agent_id: "idea-coach", message }),
  });
  return readSse(response);
}

describe("large tool-call arguments", () => {
  it("writes a 1 MiB save_output and completes the turn, with a bounded tool_call event", async () => {
    const events = await chat(`write ${mebibyte}`);
    const done = events.find((event) => event.event === "done");
    expect(done?.data).toMatchObject({ response: "saved" });
    const call = events.find((event) => event.event === "tool_call");
    expect(call?.data).toMatchObject({ arguments_truncated: true });
    expect(JSON.stringify(call?.data).length).toBeLessThan(16 * 1024);
    const sessionId = String(done?.data["session_id"]);
    const listed = (await (await fetch(`${system.url}/api/sessions/${sessionId}/files`)).json()) as { files: Array<{ path: string; size: number }> };
    expect(listed.files).toEqual([expect.objectContaining({ path: "big.md", size: mebibyte })]);
    const stored = await fetch(`${system.url}/api/sessions/${sessionId}/files/big.md`);
    expect(stored.status).toBe(200);
    expect(await stored.text()).toBe("a".repeat(mebibyte));
  });

  it("answers 1 MiB + 1 with a CONTENT_TOO_LARGE tool error and still completes the turn", async () => {
    const events = await chat(`write ${mebibyte + 1}`);
    expect(events.find((event) => event.event === "tool_result")?.data).toMatchObject({ success: false, error_code: "CONTENT_TOO_LARGE" });
    expect(events.find((event) => event.event === "done")?.data).toMatchObject({ response: "refused: CONTENT_TOO_LARGE" });
  });
});
