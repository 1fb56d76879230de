import { describe, expect, it } from "vitest";
import { formatBytes, formatCost, formatDuration, formatOwnSpending, formatRelativeTime } from "./format.js";

describe("formatting for display", () => {
  it("formats sizes in B, KB and MB", () => {
    expect([formatBytes(21), formatBytes(2048), formatBytes(3 * 1024 * 1024)]).toEqual(["21 B", "2.0 KB", "3.0 MB"]);
  });

  it("formats amounts with two decimals, or three significant digits below 1", () => {
    expect([formatCost(0), formatCost(0.0036), formatCost(0.010799999999999999), formatCost(12.345)]).toEqual(["0", "0.0036", "0.0108", "12.35"]);
  });

  it("formats durations in ms below a second, else in seconds", () => {
    expect([formatDuration(12.4), formatDuration(1500), formatDuration(42_000)]).toEqual(["12 ms", "1.5 s", "42 s"]);
  });

  it("formats times relative to now, and an unreadable time as given", () => {
    const now = Date.parse("2025-01-10T12:00:00Z");
    expect(formatRelativeTime("2025-01-10T11:59:40Z", now)).toBe("just now");
    expect(formatRelativeTime("2025-01-10T11:55:00Z", now)).toMatch(/5 minutes ago/);
    expect(formatRelativeTime("not a time", now)).toBe("not a time");
  });

  it("says the caller's own spending with their daily budget, and nothing where nothing is priced", () => {
    const usage = (today: number, month: number, limit: number | null) => ({ today: { cost: today }, this_month: { cost: month }, daily_budget: { limit } });
    expect(formatOwnSpending(usage(0.0036, 0.0108, 0.05))).toBe("You today: 0.0036 of 0.05 · this month: 0.0108");
    expect(formatOwnSpending(usage(0, 1.5, null))).toBe("You today: 0 · this month: 1.50");
    expect(formatOwnSpending(usage(0, 0, 0.05))).toBe("You today: 0 of 0.05 · this month: 0");
    expect(formatOwnSpending(usage(0, 0, null))).toBeUndefined();
  });
});
