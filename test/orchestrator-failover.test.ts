/**
 * An orchestrator SIGKILLed in the middle of a turn that waits on a slow model. The turn's
 * request is still in the JetStream work queue (not acknowledged), so a second orchestrator process
 * takes it over after the ack wait; the client gets exactly one answer and the conversation holds the
 * turn once.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpModel, ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { startServiceProcess, type ServiceProcess } from "@agent-orchestrator/testing/service-processes";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

let system: TestSystem;
let model: HttpModel;
let second: ServiceProcess | undefined;

beforeAll(async () => {
  let calls = 0;
  // the first call hangs (its orchestrator will be killed); the takeover's call answers at once
  system = await startTestSystem({
    responder: (): ScriptedTurn => (++calls === 1 ? { text: "never delivered", delayMs: 60_000 } : { text: "survived" }),
    env: { RUN_ACK_WAIT_MS: "2000" },
  });
  model = system.model;
}, 60_000);

afterAll(async () => {
  await second?.stop();
  await system?.stop();
});

describe("an orchestrator killed mid-turn", () => {
  it("is replaced by another orchestrator process: one answer, the turn once in the conversation", async () => {
    const reply = fetch(`${system.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ agent_id: "idea-coach", message: "please survive" }),
    });
    while (model.requests.length === 0) await sleep(20);

    second = startServiceProcess("orchestrator", system.env);
    await second.waitForLine((line) => line["msg"] === "orchestrator ready");
    const first = system.processes.find((service) => service.name === "orchestrator") as ServiceProcess;
    await first.stop("SIGKILL");

    const response = await reply;
    expect(response.status).toBe(200);
    const body = (await response.json()) as { session_id: string; response: string; iterations: number };
    expect(body).toMatchObject({ response: "survived", iterations: 1 });
    expect(model.requests).toHaveLength(2);

    const session = (await (await fetch(`${system.url}/api/sessions/${body.session_id}`)).json()) as {
      session: { status: string; turns: number; messages: Array<{ role: string; content: string }> };
    };
    expect(session.session).toMatchObject({ status: "completed", turns: 1 });
    expect(session.session.messages).toEqual([
      { role: "user", content: "please survive" },
      { role: "assistant", content: "survived" },
    ]);
  }, 60_000);
});
