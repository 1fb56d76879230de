import { describe, expect, it } from "vitest";
import { MessageRate } from "./message-rate.js";

describe("WebSocket message rate", () => {
  it("allows a burst of perSecond messages, refuses the next, and refills over time", () => {
    let now = 0;
    const rate = new MessageRate(5, () => now);
    for (let index = 0; index < 5; index++) expect(rate.take()).toBe(true);
    expect(rate.take()).toBe(false);
    now = 200;
    expect(rate.take()).toBe(true);
    expect(rate.take()).toBe(false);
  });
});
