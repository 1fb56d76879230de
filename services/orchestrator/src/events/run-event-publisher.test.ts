import { randomUUID } from "node:crypto";
import type { JsMsg } from "nats";
import { describe, expect, it } from "vitest";
import { decodeJson } from "@agent-orchestrator/shared/runtime";
import { RunEvent, subjects } from "@agent-orchestrator/shared/wire";
import { RunEventPublisher } from "./run-event-publisher.js";
import { scratchStreams } from "../testing/scratch-streams.js";

const scratch = scratchStreams();

/** A private RUN_EVENTS for one test, created now or (`later`) when the test calls `create`, as after a leader election. */
async function eventStream(options: { later?: boolean; maxMsgSize?: number } = {}) {
  const prefix = `rep${randomUUID().slice(0, 8)}.`;
  const name = `RUN_EVENTS_${prefix.slice(0, -1)}`;
  scratch.track(name);
  const manager = await scratch.connection().jetstreamManager();
  const create = () => manager.streams.add({ name, subjects: [prefix + subjects.runEventsAll], ...(options.maxMsgSize ? { max_msg_size: options.maxMsgSize } : {}) });
  if (!options.later) await create();
  return {
    prefix,
    create,
    async stored(): Promise<RunEvent[]> {
      const consumer = await scratch.connection().jetstream().consumers.get(name);
      const { messages } = await manager.streams.info(name).then((info) => info.state);
      const events: RunEvent[] = [];
      if (messages === 0) return events;
      const batch = await consumer.fetch({ max_messages: messages, expires: 2_000 });
      for await (const message of batch as AsyncIterable<JsMsg>) {
        events.push(decodeJson(message.data, RunEvent));
        if (events.length === messages) break;
      }
      return events;
    },
  };
}

const delta = (text: string) => ({ type: "delta" as const, text });
const toolCall = (index: number) => ({ type: "tool_call" as const, call_id: `c${index}`, name: "read_file", arguments: { file_path: `f${index}` } });
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const done = { type: "done" as const, response: "ok", iterations: 1, usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }, usage_by_call: [], session_usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } };

describe("run event publisher", () => {
  it("stores a turn's events in the stream once each and in order, sent without waiting for each other", async () => {
    const stream = await eventStream();
    const publisher = new RunEventPublisher(scratch.connection(), "s1", randomUUID(), stream.prefix);
    publisher.emit({ type: "session", agent_id: "a", attempt: 1 });
    for (let index = 0; index < 200; index++) publisher.emit(toolCall(index));
    publisher.finish(done);
    publisher.emit(toolCall(999));
    expect(await publisher.settled()).toBeUndefined();
    const stored = await stream.stored();
    expect(stored.map((event) => event.seq)).toEqual(Array.from({ length: 202 }, (_, index) => index));
    expect(stored.at(-1)?.type).toBe("done");
  });

  it("sends every event again in order when the stream answers no one, until it is there, and stores each once", async () => {
    const stream = await eventStream({ later: true });
    const publisher = new RunEventPublisher(scratch.connection(), "s1", randomUUID(), stream.prefix);
    publisher.emit({ type: "session", agent_id: "a", attempt: 1 });
    for (let index = 0; index < 50; index++) publisher.emit(toolCall(index));
    // a round trip on the publisher's connection after those publishes went out: the server has answered
    // them "no responders" (before its PONG), and a turn of the event loop lets the publisher take the
    // failure, so the next events come while it re-sends
    await nextTurn();
    await scratch.connection().flush();
    await nextTurn();
    for (let index = 50; index < 100; index++) publisher.emit(toolCall(index));
    publisher.finish(done);
    await stream.create();
    expect(await publisher.settled()).toBeUndefined();
    const stored = await stream.stored();
    expect(stored.map((event) => event.seq)).toEqual(Array.from({ length: 102 }, (_, index) => index));
  });

  it("sends the first delta at once and joins the ones that follow it in the same turn of the event loop, in order", async () => {
    const stream = await eventStream();
    const publisher = new RunEventPublisher(scratch.connection(), "s1", randomUUID(), stream.prefix);
    publisher.emit({ type: "session", agent_id: "a", attempt: 1 });
    await nextTurn();
    for (const text of ["Hel", "lo", ", wor"]) publisher.emit(delta(text));
    publisher.emit(toolCall(1));
    publisher.emit(delta("ld"));
    await nextTurn();
    publisher.emit(delta("!"));
    publisher.finish(done);
    expect(await publisher.settled()).toBeUndefined();
    const stored = await stream.stored();
    expect(stored.map((event) => (event.type === "delta" ? `delta:${event.text}` : event.type))).toEqual([
      "session", "delta:Hel", "delta:lo, wor", "tool_call", "delta:ld", "delta:!", "done",
    ]);
    expect(stored.map((event) => event.seq)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it("reports an error the stream gives and publishes nothing more", async () => {
    const stream = await eventStream({ maxMsgSize: 400 });
    const publisher = new RunEventPublisher(scratch.connection(), "s1", randomUUID(), stream.prefix);
    publisher.emit({ type: "session", agent_id: "a", attempt: 1 });
    publisher.emit(delta("x".repeat(1_000)));
    // the delta, held in the session event's turn of the event loop, goes out; then every event so far is
    // settled: the stream refused it
    await nextTurn();
    expect(await publisher.settled()).toBeInstanceOf(Error);
    publisher.emit(delta("small"));
    publisher.finish(done);
    expect(await publisher.settled()).toBeInstanceOf(Error);
    expect((await stream.stored()).map((event) => event.seq)).toEqual([0]);
  });
});
