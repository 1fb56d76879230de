import { describe, expect, it } from "vitest";
import { isAbandoned } from "./abandoned-turn.js";

const lifetime = { TURN_TIMEOUT_MS: 120_000, RUN_ACK_WAIT_MS: 30_000, RUN_MAX_DELIVER: 3 };
const startedAt = (run_started_at: string | null) => ({ run_started_at });

describe("isAbandoned", () => {
  const now = Date.parse("2026-11-22T12:00:00.000Z");

  it("keeps a turn that may still be running (within its limit plus every redelivery) busy", () => {
    expect(isAbandoned(startedAt("2026-11-22T11:58:00.000Z"), lifetime, now)).toBe(false);
    expect(isAbandoned(startedAt("2026-11-22T11:56:01.000Z"), lifetime, now)).toBe(false);
  });

  it("frees a session whose turn is older than the longest a turn can live", () => {
    expect(isAbandoned(startedAt("2026-11-22T11:55:59.000Z"), lifetime, now)).toBe(true);
    expect(isAbandoned(startedAt(null), lifetime, now)).toBe(true);
  });
});
