/**
 * One running turn per session (ARCHITECTURE.md "One chat turn", step 3; the rule in
 * services/orchestrator/src/turn/turn-acceptance.ts): of two chats at once in one session, one is answered and the
 * other refused with 409 SESSION_BUSY through POST /api/chat, whether they reach the orchestrators together (one
 * loses the compare-and-set on the session) or one while the other runs (the rule refuses it). Real processes,
 * a private nats-server, the scripted model.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatRequestBody, ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

/**
 * Holds the model's answers to "hold" until the test lets them go, so two turns overlap however slow the machine.
 * A second turn that reaches the model lets both go, so the test fails on what they answered rather than on a
 * timeout: one accepted too, or one whose request went out while its session's hold was written and lost
 * (services/orchestrator/src/turn/hold-gate.ts), which is then stopped unheard.
 */
class Hold {
  private calls = 0;
  private open: () => void = () => undefined;
  private readonly opened = new Promise<void>((resolve) => (this.open = resolve));
  private reach: () => void = () => undefined;
  /** the model has the first held turn: it is running */
  readonly reached = new Promise<void>((resolve) => (this.reach = resolve));

  async take(): Promise<void> {
    this.calls += 1;
    this.reach();
    if (this.calls > 1) this.open();
    await this.opened;
  }

  release(): void {
    this.open();
  }
}

let system: TestSystem;
let hold = new Hold();

const lastSaid = (request: ChatRequestBody) => withoutSystemNote(String(request.messages.filter((message) => message.role === "user").at(-1)?.content ?? ""));

async function respond(request: ChatRequestBody): Promise<ScriptedTurn> {
  const said = lastSaid(request);
  if (said !== "hold") return { text: `echo: ${said}` };
  await hold.take();
  return { text: "the one answer" };
}

beforeAll(async () => {
  system = await startTestSystem({ responder: respond });
}, 60_000);

afterAll(() => system?.stop());

async function chat(body: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${system.url}/api/chat`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function newSession(): Promise<string> {
  return (await chat({ agent_id: "idea-coach", message: "hello" })).body["session_id"] as string;
}

/** The model calls of "hold" turns so far. */
const heldCalls = () => system.model.requests.filter((request) => lastSaid(request.body) === "hold").length;

const held = (sessionId: string) => chat({ agent_id: "idea-coach", message: "hold", session_id: sessionId });
const busy = { success: false, error: { code: "SESSION_BUSY", message: expect.any(String) } };

/** The session kept exactly one held turn after its first one. */
async function expectOneHeldTurn(sessionId: string): Promise<void> {
  const view = (await (await fetch(`${system.url}/api/sessions/${sessionId}`)).json()) as { session: { status: string; turns: number; messages: unknown[] } };
  expect(view.session).toMatchObject({ status: "completed", turns: 2 });
  expect(view.session.messages.slice(2)).toEqual([
    { role: "user", content: "hold" },
    { role: "assistant", content: "the one answer" },
  ]);
}

describe("two chats at once in one session", () => {
  it("sent together: answers one and refuses the other with 409 SESSION_BUSY", async () => {
    hold = new Hold();
    const sessionId = await newSession();
    const both = await Promise.all(
      [1, 2].map(async () => {
        const answer = await held(sessionId);
        if (answer.status !== 200) hold.release();
        return answer;
      }),
    );
    expect(both.map((answer) => answer.status).sort()).toEqual([200, 409]);
    expect(both.find((answer) => answer.status === 200)?.body).toMatchObject({ success: true, session_id: sessionId, response: "the one answer" });
    expect(both.find((answer) => answer.status === 409)?.body).toEqual(busy);
    await expectOneHeldTurn(sessionId);
  });

  it("one sent while the other runs: refuses it with 409 SESSION_BUSY, and the running one answers", async () => {
    hold = new Hold();
    const sessionId = await newSession();
    const callsBefore = heldCalls();
    const first = held(sessionId);
    await hold.reached;
    const second = await held(sessionId);
    hold.release();
    expect(second).toEqual({ status: 409, body: busy });
    expect(await first).toMatchObject({ status: 200, body: { success: true, response: "the one answer" } });
    await expectOneHeldTurn(sessionId);
    // the refused turn read its chat running and made no model call while its hold was written
    expect(heldCalls() - callsBefore).toBe(1);
  });
});
