import { randomUUID } from "node:crypto";
import { DiscardPolicy, RetentionPolicy, StorageType } from "nats";
import { describe, expect, it } from "vitest";
import { parseEnv } from "@agent-orchestrator/shared/runtime";
import { jetStreamNames, subjects } from "@agent-orchestrator/shared/wire";
import { orchestratorEnvSchema } from "../config.js";
import { ensureRunStreams } from "./jetstream-setup.js";
import { scratchStreams } from "../testing/scratch-streams.js";

const scratch = scratchStreams();

function setUp(env: Record<string, string>) {
  const prefix = `js${randomUUID().slice(0, 8)}.`;
  const names = jetStreamNames(prefix);
  scratch.track(names.runRequests);
  scratch.track(names.runEvents);
  const parsed = parseEnv(orchestratorEnvSchema, env);
  if (!parsed.ok) throw new Error(parsed.message);
  return { prefix, names, config: parsed.value };
}

describe("ensureRunStreams: byte limits (docs/security.md case 130)", () => {
  it("case 130: bounds both streams in bytes, dropping old events but refusing new turns, also on streams made before the limits", async () => {
    const { prefix, names, config } = setUp({ EVENTS_MAX_BYTES: String(8 * 1024 ** 2), RUN_REQUESTS_MAX_BYTES: String(2 * 1024 ** 2) });
    const manager = await scratch.connection().jetstreamManager();
    // as an orchestrator before the limits made them
    await manager.streams.add({ name: names.runEvents, subjects: [prefix + subjects.runEventsAll], retention: RetentionPolicy.Limits, storage: StorageType.File, discard: DiscardPolicy.Old });
    await ensureRunStreams(manager, names, config, prefix);

    const events = (await manager.streams.info(names.runEvents)).config;
    expect(events).toMatchObject({ max_bytes: 8 * 1024 ** 2, discard: DiscardPolicy.Old });
    const requests = (await manager.streams.info(names.runRequests)).config;
    expect(requests).toMatchObject({ max_bytes: 2 * 1024 ** 2, discard: DiscardPolicy.New });
    expect(requests.max_msg_size).toBeGreaterThanOrEqual(600_000);

    // the events stream keeps taking events past its limit, its oldest dropped
    const js = scratch.connection().jetstream();
    const event = new Uint8Array(512 * 1024);
    for (let index = 0; index < 24; index++) await js.publish(prefix + subjects.runEvents("s1", `r${index}`), event);
    const state = (await manager.streams.info(names.runEvents)).state;
    expect(state.bytes).toBeLessThanOrEqual(8 * 1024 ** 2);
    expect(state.first_seq).toBeGreaterThan(1);
  });

  it("case 130: stops at start with the setting to change when the server cannot reserve a limit", async () => {
    const { prefix, names, config } = setUp({ EVENTS_MAX_BYTES: String(1024 ** 4) });
    const manager = await scratch.connection().jetstreamManager();
    await expect(ensureRunStreams(manager, names, config, prefix)).rejects.toMatchObject({
      code: "SERVICE_UNAVAILABLE",
      message: expect.stringContaining("lower EVENTS_MAX_BYTES"),
    });
  });
});
