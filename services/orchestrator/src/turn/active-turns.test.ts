import { describe, expect, it } from "vitest";
import { ActiveTurns } from "./active-turns.js";

describe("ActiveTurns", () => {
  it("cancels one named run of a session, or every run of it (a turn and its subagents)", () => {
    const active = new ActiveTurns();
    const [turn, child, other] = [new AbortController(), new AbortController(), new AbortController()];
    active.add("s1", "turn", turn);
    active.add("s1", "child", child);
    active.add("s2", "other", other);

    expect(active.cancel("s1", "child")).toBe(true);
    expect([turn.signal.aborted, child.signal.aborted]).toEqual([false, true]);
    expect(active.cancel("s1", "ghost")).toBe(false);
    expect(active.cancel("s1")).toBe(true);
    expect(turn.signal.aborted).toBe(true);
    expect(other.signal.aborted).toBe(false);

    active.remove("s1", "turn");
    active.remove("s1", "child");
    expect(active.cancel("s1")).toBe(false);
  });
});
