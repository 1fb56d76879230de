import { describe, expect, it } from "vitest";
import { dayOf, monthOf, nextDayStart, nextMonthStart } from "./spending-periods.js";

describe("spending periods", () => {
  it.each([
    ["2026-11-25T10:00:00Z", "2026-11", "2026-11-25", "2026-12-01T00:00:00.000Z", "2026-11-26T00:00:00.000Z"],
    ["2026-12-31T23:59:59.999Z", "2026-12", "2026-12-31", "2027-01-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z"],
    ["2028-02-28T12:00:00Z", "2028-02", "2028-02-28", "2028-03-01T00:00:00.000Z", "2028-02-29T00:00:00.000Z"],
    // a time written with an offset is counted in its UTC period
    ["2026-11-30T23:30:00-02:00", "2026-12", "2026-12-01", "2027-01-01T00:00:00.000Z", "2026-12-02T00:00:00.000Z"],
  ])("%s is in month %s and day %s", (at, month, day, monthReset, dayReset) => {
    const date = new Date(at);
    expect([monthOf(date), dayOf(date), nextMonthStart(date).toISOString(), nextDayStart(date).toISOString()]).toEqual([month, day, monthReset, dayReset]);
  });
});
