import { describe, expect, it } from "vitest";
import { zeroUsage, type SessionRecord } from "@agent-orchestrator/shared";
import { isAbandoned } from "./turn-runner.js";

const config = { TURN_TIMEOUT_MS: 120_000, RUN_ACK_WAIT_MS: 30_000, RUN_MAX_DELIVER: 3 };
const running = (startedAt: string | null): SessionRecord => ({
  id: "s",
  agent_id: "a",
  owner: "o",
  status: "running",
  run_id: "r",
  run_started_at: startedAt,
  last_run_id: "r",
  messages: [],
  usage: zeroUsage(),
  turns: 0,
  created_at: "2026-11-22T00:00:00.000Z",
  updated_at: "2026-11-22T00:00:00.000Z",
});

describe("isAbandoned", () => {
  const now = Date.parse("2026-11-22T12:00:00.000Z");

  it("keeps a turn that may still be running (within its limit plus every redelivery) busy", () => {
    expect(isAbandoned(running("2026-11-22T11:58:00.000Z"), config, now)).toBe(false);
    expect(isAbandoned(running("2026-11-22T11:56:01.000Z"), config, now)).toBe(false);
  });

  it("frees a session whose turn is older than the longest a turn can live", () => {
    expect(isAbandoned(running("2026-11-22T11:55:59.000Z"), config, now)).toBe(true);
    expect(isAbandoned(running(null), config, now)).toBe(true);
  });
});
