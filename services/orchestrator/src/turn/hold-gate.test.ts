import { describe, expect, it } from "vitest";
import type { RunEventBody, SessionRecord } from "@agent-orchestrator/shared/wire";
import type { ModelCaller, ModelRequest, ModelStreamPart } from "../loop/model-caller.js";
import { HoldGate } from "./hold-gate.js";
import { callsAhead } from "./turn-session.js";
import type { AdmittedTurn, HeldTurn } from "./turn-state.js";

const lifetime = { TURN_TIMEOUT_MS: 120_000, RUN_ACK_WAIT_MS: 30_000, RUN_MAX_DELIVER: 3 };

function record(overrides: Partial<SessionRecord> = {}): SessionRecord {
  const now = new Date().toISOString();
  return {
    id: "s1",
    agent_id: "a",
    owner: "alice",
    project_id: "p1",
    status: "completed",
    run_id: null,
    run_started_at: null,
    last_run_id: "r0",
    messages: [],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    turns: 0,
    created_at: now,
    updated_at: now,
    ...overrides,
  };
}

/** A turn as far as the gate and `callsAhead` read it: its request, place, budget, and the events it publishes. */
function turnOf(options: { stored?: SessionRecord; newSession?: boolean; attempt?: number; budget?: boolean } = {}) {
  const published: RunEventBody[] = [];
  const turn = {
    request: { run_id: "r1", session_id: "s1", new_session: options.newSession ?? !options.stored },
    attempt: options.attempt ?? 1,
    place: { projectId: "p1", repository: false, ...(options.stored ? { stored: { record: options.stored, version: 1 } } : {}) },
    agent: { id: "a" },
    budget: options.budget ? {} : undefined,
    events: { emit: (event: RunEventBody) => published.push(event) },
  } as unknown as AdmittedTurn;
  return { turn, published };
}

/** A hold the test writes: `write` announces the turn, as the hold does, then gives the held session. */
function hold(turn: AdmittedTurn) {
  let settle: (held: HeldTurn | undefined) => void = () => undefined;
  let refuse: (error: Error) => void = () => undefined;
  const holding = new Promise<HeldTurn | undefined>((resolve, reject) => {
    settle = resolve;
    refuse = reject;
  });
  return {
    holding,
    write(messages = turn.place.stored?.record.messages ?? []) {
      turn.events.emit({ type: "session", agent_id: "a", project_id: "p1", attempt: 1 });
      settle(Object.assign(turn, { session: { record: record({ status: "running", run_id: "r1", messages }), version: 2 } }));
    },
    drop: () => settle(undefined),
    refuse,
  };
}

/** A model whose answer is two text parts; it says when its request went out and when it was stopped. */
function model() {
  const seen = { requested: false, returned: false };
  const caller: ModelCaller = {
    async *stream(_request: ModelRequest): AsyncGenerator<ModelStreamPart> {
      seen.requested = true;
      try {
        yield { type: "text", text: "Hel" };
        yield { type: "text", text: "lo" };
      } finally {
        seen.returned = true;
      }
    },
  };
  return { caller, seen };
}

const request: ModelRequest = { messages: [], tools: [], signal: new AbortController().signal };
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

async function read(parts: AsyncIterable<ModelStreamPart>): Promise<string[]> {
  const texts: string[] = [];
  for await (const part of parts) if (part.type === "text") texts.push(part.text);
  return texts;
}

describe("HoldGate", () => {
  it("keeps the turn's events until the hold is written, then publishes them after the `session` event it announces", async () => {
    const { turn, published } = turnOf({ newSession: true });
    const written = hold(turn);
    const gate = new HoldGate(turn, written.holding, true);
    gate.emit({ type: "compaction", before_tokens: 10, after_tokens: 5, stage: "summary", reason: "threshold" });
    await tick();
    expect(published).toEqual([]);
    written.write();
    await gate.held;
    await tick();
    gate.emit({ type: "delta", text: "after" });
    expect(published.map((event) => event.type)).toEqual(["session", "compaction", "delta"]);
  });

  it("sends the model's request at once and reads its answer only once the hold is written", async () => {
    const { turn } = turnOf({ newSession: true });
    const written = hold(turn);
    const { caller, seen } = model();
    const texts: string[] = [];
    const reading = (async () => {
      for await (const part of new HoldGate(turn, written.holding, true).model(caller).stream(request)) if (part.type === "text") texts.push(part.text);
    })();
    await tick();
    expect({ requested: seen.requested, texts }).toEqual({ requested: true, texts: [] });
    written.write();
    await reading;
    expect({ texts, returned: seen.returned }).toEqual({ texts: ["Hel", "lo"], returned: true });
  });

  it("makes the call only once the hold is written when it may not go ahead (a budget to ask first, or a turn running)", async () => {
    const { turn } = turnOf({ newSession: true, budget: true });
    const written = hold(turn);
    const { caller, seen } = model();
    const reading = read(new HoldGate(turn, written.holding, false).model(caller).stream(request));
    await tick();
    expect(seen.requested).toBe(false);
    written.write();
    expect(await reading).toEqual(["Hel", "lo"]);
  });

  it("reports a model that fails at once only after the hold is written, as the turn's error after `session`", async () => {
    const { turn } = turnOf({ newSession: true });
    const written = hold(turn);
    const failing: ModelCaller = {
      async *stream(): AsyncGenerator<ModelStreamPart> {
        throw Object.assign(new Error("401 Unauthorized"), { status: 401 });
      },
    };
    let settled: unknown;
    const reading = read(new HoldGate(turn, written.holding, true).model(failing).stream(request)).then(
      () => (settled = "read"),
      (error: unknown) => (settled = error),
    );
    await tick();
    expect(settled).toBeUndefined();
    written.write();
    await reading;
    expect(settled).toMatchObject({ status: 401 });
  });

  it("ends a call whose hold refused the turn with the hold's error, its answer unread and the call stopped", async () => {
    const { turn, published } = turnOf({ stored: record() });
    const written = hold(turn);
    const gate = new HoldGate(turn, written.holding, true);
    const { caller, seen } = model();
    const reading = read(gate.model(caller).stream(request));
    gate.emit({ type: "delta", text: "never" });
    await tick();
    written.refuse(Object.assign(new Error("A turn is already running in this session"), { code: "SESSION_BUSY" }));
    await expect(reading).rejects.toMatchObject({ code: "SESSION_BUSY" });
    await tick();
    expect({ returned: seen.returned, published }).toEqual({ returned: true, published: [] });
  });

  it("ends the call of a dropped delivery as cancelled, and publishes nothing", async () => {
    const { turn, published } = turnOf({ newSession: true });
    const written = hold(turn);
    const gate = new HoldGate(turn, written.holding, true);
    const reading = read(gate.model(model().caller).stream(request));
    written.drop();
    expect(await gate.held).toBeUndefined();
    await expect(reading).rejects.toMatchObject({ code: "CANCELLED" });
    expect(published).toEqual([]);
  });

  it("does not go on from a chat other than the one the turn was prepared from", async () => {
    const { turn } = turnOf({ newSession: true });
    const written = hold(turn);
    const reading = read(new HoldGate(turn, written.holding, true).model(model().caller).stream(request));
    written.write([{ role: "user", content: "said before" }]);
    await expect(reading).rejects.toMatchObject({ code: "SESSION_BUSY" });
  });

  it("passes the calls after the hold straight to the model", async () => {
    const { turn } = turnOf({ newSession: true });
    const written = hold(turn);
    const gate = new HoldGate(turn, written.holding, true);
    written.write();
    await gate.held;
    await tick();
    const { caller } = model();
    const direct = caller.stream(request);
    expect(gate.model({ stream: () => direct }).stream(request)).toBe(direct);
  });
});

describe("callsAhead", () => {
  const ahead = (options: Parameters<typeof turnOf>[0]) => callsAhead(lifetime, turnOf(options).turn);

  it("calls ahead for a new chat's first delivery and for a chat whose turn may start", () => {
    expect(ahead({ newSession: true })).toBe(true);
    expect(ahead({ stored: record() })).toBe(true);
  });

  it("waits for the hold with a budget to ask, for a redelivered new chat, and for a chat the hold will refuse, drop or move", () => {
    expect(ahead({ newSession: true, budget: true })).toBe(false);
    expect(ahead({ newSession: true, attempt: 2 })).toBe(false);
    expect(ahead({ stored: record({ status: "running", run_id: "other", run_started_at: new Date().toISOString() }) })).toBe(false);
    expect(ahead({ stored: record({ status: "awaiting_approval", run_id: "other" }) })).toBe(false);
    expect(ahead({ stored: record({ status: "running", run_id: "r1", run_started_at: new Date().toISOString() }) })).toBe(false);
    expect(ahead({ stored: record({ agent_id: "another" }) })).toBe(false);
    expect(ahead({ stored: record({ project_id: undefined }) })).toBe(false);
  });
});
