import { describe, expect, it } from "vitest";
import { parseJson } from "./safe-json.js";

describe("parseJson", () => {
  it("parses ordinary JSON", () => {
    expect(parseJson('{"a":[1,2,{"b":"c"}]}')).toEqual({ ok: true, value: { a: [1, 2, { b: "c" }] } });
  });

  it("drops __proto__ keys so nothing is polluted, including the escaped spelling", () => {
    for (const text of ['{"__proto__":{"polluted":1},"path":"a"}', '{"\\u005f\\u005fproto__":{"polluted":1},"path":"a"}']) {
      const result = parseJson(text);
      expect(result).toEqual({ ok: true, value: { path: "a" } });
      expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
      if (result.ok) expect(Object.getPrototypeOf(result.value)).toBe(Object.prototype);
    }
  });

  it("drops nested constructor.prototype keys", () => {
    expect(parseJson('{"a":{"constructor":{"prototype":{"x":1}}}}')).toEqual({ ok: true, value: { a: {} } });
  });

  it("drops a forbidden key whichever way its letters are escaped, and keeps values that only mention one", () => {
    expect(parseJson('{"con\\u0073tructor":{"x":1},"path":"a"}')).toEqual({ ok: true, value: { path: "a" } });
    expect(parseJson('{"proto\\u0074ype":1,"note":"a constructor\'s prototype"}')).toEqual({ ok: true, value: { note: "a constructor's prototype" } });
    expect(parseJson('{"text":"__proto__","path":"a"}')).toEqual({ ok: true, value: { text: "__proto__", path: "a" } });
  });

  it("reports invalid JSON instead of throwing", () => {
    const result = parseJson('{"path": "a.txt"');
    expect(result.ok).toBe(false);
  });
});
