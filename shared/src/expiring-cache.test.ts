import { describe, expect, it } from "vitest";
import { ExpiringCache } from "./expiring-cache.js";

describe("ExpiringCache", () => {
  let clock = 0;
  const cache = () => new ExpiringCache<string>(1_000, () => clock);
  const counting = () => {
    let loads = 0;
    return { load: () => Promise.resolve(`v${++loads}`), loads: () => loads };
  };

  it("loads a key once while it is younger than its maximum age, and again after", async () => {
    clock = 0;
    const values = cache();
    const source = counting();
    expect(await values.get("a", source.load)).toBe("v1");
    clock = 999;
    expect(await values.get("a", source.load)).toBe("v1");
    clock = 1_000;
    expect(await values.get("a", source.load)).toBe("v2");
    expect(source.loads()).toBe(2);
  });

  it("shares a load under way and keeps keys apart", async () => {
    clock = 0;
    const values = cache();
    const source = counting();
    const [first, second, other] = await Promise.all([values.get("a", source.load), values.get("a", source.load), values.get("b", source.load)]);
    expect([first, second, other]).toEqual(["v1", "v1", "v2"]);
  });

  it("never keeps a failed load", async () => {
    clock = 0;
    const values = cache();
    await expect(values.get("a", () => Promise.reject(new Error("registry down")))).rejects.toThrow("registry down");
    expect(await values.get("a", () => Promise.resolve("back"))).toBe("back");
  });

  it("forgets every key on clear, and a load that was under way when it cleared", async () => {
    clock = 0;
    const values = cache();
    let release: (value: string) => void = () => undefined;
    const slow = values.get("a", () => new Promise<string>((resolve) => (release = resolve)));
    values.clear();
    release("before the change");
    expect(await slow).toBe("before the change");
    expect(await values.get("a", () => Promise.resolve("after the change"))).toBe("after the change");
  });
});
