import { describe, expect, it } from "vitest";
import { givenName, hasBidiFormat, withoutBidiFormat } from "./bidi-format.js";

describe("bidi format characters in names (docs/security.md case 218)", () => {
  const spoofs = ["\u202Eevil", "a\u202Ab", "a\u202Db", "a\u2066b\u2069", "a\u2068b", "\u200Ea", "a\u200F", "a\u061Cb"];

  it("refuses a given name with any of them, and says why", () => {
    for (const name of spoofs) {
      const parsed = givenName(200).safeParse(name);
      expect(parsed.success, JSON.stringify(name)).toBe(false);
      expect(parsed.error?.issues[0]?.message).toContain("bidi format characters");
    }
  });

  it("takes names in any script, emoji joined by U+200D included, trimmed", () => {
    for (const name of ["Étude de marché", "مشروع", "פרויקט אלף", "👩‍💻 team"]) expect(givenName(200).parse(` ${name} `)).toBe(name);
  });

  it("takes them out of a text, leaving the rest", () => {
    expect(withoutBidiFormat("report\u202Egpj.md")).toBe("reportgpj.md");
    expect(spoofs.every((name) => !hasBidiFormat(withoutBidiFormat(name)))).toBe(true);
    expect(hasBidiFormat("plain")).toBe(false);
  });
});
