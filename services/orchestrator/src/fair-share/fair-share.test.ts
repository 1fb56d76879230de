/**
 * Fair shares of turns (docs/security.md case 134): two orchestrator replicas with two slots each, and a cap
 * of two running turns per user. One user's slow turns must not take the slots another user's chat needs.
 * Real NATS, the scripted model behind the real openai client, a fake registry and tool-runner.
 */
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startHttpModel, type ChatRequestBody, type HttpModel } from "@agent-orchestrator/testing/http-model";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import type { Orchestrator } from "../orchestrator-service.js";
import { runTestTurn, startFakeServices, startTestOrchestrator } from "../testing/orchestrator-fixture.js";

const prefix = "fair1.";
let connection: NatsConnection;
let model: HttpModel;
const orchestrators: Orchestrator[] = [];
let releaseSlowTurns!: () => void;
const slowTurnsReleased = new Promise<void>((resolve) => (releaseSlowTurns = resolve));

// the latest user message, without the system's note of the day that ends the first
const userText = (body: ChatRequestBody) => withoutSystemNote(String(body.messages.filter((message) => message.role === "user").at(-1)?.content));

beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
  model = await startHttpModel({
    responder: async (body) => {
      // alice's turns think until the test lets them answer; bob's answer at once
      if (userText(body).startsWith("slow")) await slowTurnsReleased;
      return { text: `answer to ${userText(body)}` };
    },
  });
  startFakeServices(connection, prefix, { toolRunner: true });
  const env = { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: "k", LLM_MODEL: "scripted", RUN_CONCURRENCY: "2", USER_MAX_CONCURRENT_TURNS: "2" };
  // two replicas on one work queue and one count of each user's turns
  for (let replica = 0; replica < 2; replica++) orchestrators.push(await startTestOrchestrator(connection, prefix, env));
});

afterAll(async () => {
  releaseSlowTurns();
  await Promise.all(orchestrators.map((orchestrator) => orchestrator.stop()));
  await model.close();
  await connection.drain();
});

describe("fair shares of turns", () => {
  it("case 134: one user's five slow turns get two slots and a USER_TURN_LIMIT refusal for the rest, while another user's chat succeeds", async () => {
    const slowTurns = Array.from({ length: 5 }, (_unused, index) => runTestTurn(connection, prefix, `slow ${index}`, { owner: "alice", timeoutMs: 30_000 }));
    // the refusals come at once, while alice's two running turns still wait for the model
    const settled: Array<Awaited<(typeof slowTurns)[number]>> = [];
    for (const turn of slowTurns) void turn.then((result) => settled.push(result));
    await expect.poll(() => settled.length, { timeout: 15_000 }).toBe(3);
    for (const refused of settled) {
      expect(refused.final).toMatchObject({ type: "error", error: { code: "USER_TURN_LIMIT" } });
      expect(refused.final?.type === "error" && refused.final.error.message).toMatch(/already have 2 turns running, the most one user may run at once \(2\)/);
      // refused before it touched anything: no session event, no usage
      expect(refused.events.map((event) => event.type)).toEqual(["error"]);
    }
    const slowRequests = () => model.requests.filter((request) => userText(request.body).startsWith("slow")).length;
    // the two admitted turns reach the model once their chat and project are checked, maybe after the refusals
    await expect.poll(slowRequests, { timeout: 15_000 }).toBe(2);

    // two of the four slots are free for everyone else: bob's turn is taken and answered well before it expires
    const bob = await runTestTurn(connection, prefix, "hello from bob", { owner: "bob", expiresAt: Date.now() + 10_000, timeoutMs: 15_000 });
    expect(bob.final).toMatchObject({ type: "done", response: "answer to hello from bob" });

    // alice's two running turns end well, and her slots are hers again
    releaseSlowTurns();
    const results = await Promise.all(slowTurns);
    expect(results.filter((result) => result.final?.type === "done")).toHaveLength(2);
    const again = await runTestTurn(connection, prefix, "alice again", { owner: "alice", timeoutMs: 15_000 });
    expect(again.final).toMatchObject({ type: "done" });
  });
});
