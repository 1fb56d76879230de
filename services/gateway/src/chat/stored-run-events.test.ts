import { randomUUID } from "node:crypto";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createLogger, encodeJson } from "@agent-orchestrator/shared/runtime";
import { RunEvent, subjects } from "@agent-orchestrator/shared/wire";
import { StoredRunEvents } from "./stored-run-events.js";

let connection: NatsConnection;
const stream = `STORED_EVENTS_${randomUUID().slice(0, 8)}`;
const prefix = `${stream}.`;

beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
  await (await connection.jetstreamManager()).streams.add({ name: stream, subjects: [`${prefix}>`] });
});

afterAll(async () => {
  await (await connection.jetstreamManager()).streams.delete(stream);
  await connection.drain();
});

const session = (run: string, seq: number, attempt: number) =>
  RunEvent.parse({ session_id: "s", run_id: run, seq, type: "session", agent_id: "a", project_id: "p", attempt });
const delta = (run: string, seq: number, text: string) => RunEvent.parse({ session_id: "s", run_id: run, seq, type: "delta", text });
const store = (run: string, event: RunEvent) => connection.jetstream().publish(prefix + subjects.runEvents("s", run), encodeJson(event));
const shown = (events: RunEvent[]) => events.map((event) => `${event.seq}:${event.type}${event.type === "delta" ? `:${event.text}` : ""}`);

describe("a turn's stored events, read on demand", () => {
  it("gives what was stored since the last read, of this turn only, from the latest attempt on", async () => {
    const stored = new StoredRunEvents(connection, stream, prefix + subjects.runEvents("s", "r1"), createLogger("stored-run-events-test", "silent"));
    await store("r1", session("r1", 0, 1));
    await store("other", session("other", 0, 1));
    await store("r1", delta("r1", 1, "first try"));
    expect(shown(await stored.read())).toEqual(["0:session", "1:delta:first try"]);
    expect(await stored.read()).toEqual([]);
    // another orchestrator took the turn over: its events number from 0 again
    await store("r1", session("r1", 0, 2));
    await store("r1", delta("r1", 1, "second try"));
    expect(shown(await stored.read())).toEqual(["0:session", "1:delta:second try"]);
  });

  it("gives nothing, and lets the live relay go on, when the stream cannot be read", async () => {
    const stored = new StoredRunEvents(connection, "NO_SUCH_STREAM", "x.y", createLogger("stored-run-events-test", "silent"));
    expect(await stored.read()).toEqual([]);
  });
});
