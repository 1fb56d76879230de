/**
 * A conversation longer than any NATS message keeps working (docs/design.md "Limits of a turn"): three turns whose answers
 * are 900 KB each, through the four services on the production permissions; the next turn's model sees the
 * whole conversation and `GET /api/sessions/:id` reads it back whole.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatRequestBody, ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

const answerBytes = 900_000;
let system: TestSystem;

function respond(request: ChatRequestBody): ScriptedTurn {
  const said = withoutSystemNote(String(request.messages.at(-1)?.content ?? ""));
  return { text: `${said}:`.padEnd(answerBytes, "é") };
}

beforeAll(async () => {
  // answers of 1.8 MB (two bytes a character) and a model that sees them all: above the default answer cap and context window
  system = await startTestSystem({ responder: respond, env: { MODEL_ANSWER_MAX_BYTES: String(2 * 1024 * 1024), MODEL_CONTEXT_WINDOW: "10000000" } });
}, 60_000);

afterAll(() => system?.stop());

async function chat(message: string, sessionId?: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${system.url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ agent_id: "idea-coach", message, ...(sessionId ? { session_id: sessionId } : {}) }),
  });
  return (await response.json()) as Record<string, unknown>;
}

describe("a long conversation", () => {
  it("keeps working past 2 MB and reads back whole", async () => {
    const first = await chat("one");
    expect(first).toMatchObject({ success: true });
    const sessionId = String(first["session_id"]);
    for (const message of ["two", "three"]) expect(await chat(message, sessionId)).toMatchObject({ success: true });
    const last = await chat("four", sessionId);
    expect(last).toMatchObject({ success: true });
    expect(String(last["response"]).length).toBe(answerBytes);

    const modelSaw = system.model.requests.at(-1)?.body.messages.filter((message) => message.role === "assistant") ?? [];
    expect(modelSaw.map((message) => String(message.content).length)).toEqual([answerBytes, answerBytes, answerBytes]);

    const view = (await (await fetch(`${system.url}/api/sessions/${sessionId}`)).json()) as { session: { messages: Array<{ role: string; content: string }>; turns: number } };
    expect(view.session.turns).toBe(4);
    expect(view.session.messages.map((message) => message.content.slice(0, 5))).toEqual(["one", "one:é", "two", "two:é", "three", "three", "four", "four:"]);
    expect(view.session.messages.filter((message) => message.role === "assistant").every((message) => message.content.length === answerBytes)).toBe(true);

    const list = (await (await fetch(`${system.url}/api/sessions`)).json()) as { sessions: Array<{ id: string; title: string }> };
    expect(list.sessions).toContainEqual(expect.objectContaining({ id: sessionId, title: "one" }));
  });
});
