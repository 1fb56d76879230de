import { describe, expect, it } from "vitest";
import { parseBmadYaml, yamlAliasLimit } from "./yaml.js";
import { flattenText } from "./yaml-values.js";

describe("parseBmadYaml", () => {
  it("drops __proto__ keys, also through a << merge, so nothing is polluted (docs/security.md case 82)", () => {
    const text = "base: &b {__proto__: {polluted: 1}}\nx:\n  <<: *b\n  __proto__: {polluted: 2}\nconstructor: {prototype: {polluted: 3}}\n";
    const result = parseBmadYaml(text);
    expect(result.ok).toBe(true);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    const value = (result as { value: Record<string, Record<string, unknown>> }).value;
    expect(Object.keys(value)).toEqual(["base", "x"]);
    expect(Object.prototype.hasOwnProperty.call(value["x"], "__proto__")).toBe(false);
    expect(Object.getPrototypeOf(value["x"])).toBe(Object.prototype);
  });

  it("rejects an alias bomb within the alias limit, quickly (docs/security.md case 83)", () => {
    const levels = ["a: &a [x, x, x, x, x, x, x, x, x]"];
    for (let level = 1; level < 9; level++) {
      const previous = String.fromCharCode(96 + level);
      levels.push(`${String.fromCharCode(97 + level)}: &${String.fromCharCode(97 + level)} [${Array(9).fill(`*${previous}`).join(", ")}]`);
    }
    // refused by the alias count before expanding anything, as the error says (its speed is bench/'s to measure)
    const result = parseBmadYaml(levels.join("\n"));
    expect(result).toEqual({ ok: false, error: "Excessive alias count indicates a resource exhaustion attack" });
    expect(yamlAliasLimit).toBeLessThanOrEqual(100);
  });

  it("has no tags that build objects or run code", () => {
    const result = parseBmadYaml("a: !!js/function 'function () { return 1 }'\nb: !!binary aGk=\n");
    expect(result.ok).toBe(true);
    const value = (result as { value: Record<string, unknown> }).value;
    expect(value["a"]).toBe("function () { return 1 }");
    expect(value["b"]).toBeInstanceOf(Uint8Array); // YAML's own data tags give data, never code
  });

  it("returns the first line of the error instead of throwing", () => {
    const result = parseBmadYaml("a: [1, 2\n");
    expect(result.ok).toBe(false);
    expect((result as { error: string }).error).not.toContain("\n");
  });
});

describe("flattenText", () => {
  it("turns nested YAML into readable lines and bounds its depth", () => {
    expect(flattenText({ a: ["x", { b: 1 }], c: true })).toBe("a: x\nb: 1\nc: true");
    let deep: unknown = "bottom";
    for (let level = 0; level < 100; level++) deep = [deep];
    expect(flattenText(deep)).toBe("…");
  });
});
