import { describe, expect, it } from "vitest";
import { matchSnippet, plainTextPattern, snippetChars } from "./match-snippet.js";

describe("matchSnippet", () => {
  it("finds plain text ignoring case, every character literal", () => {
    expect(matchSnippet("Price (USD) is 3.5", plainTextPattern("(usd)"))).toBe("Price (USD) is 3.5");
    expect(matchSnippet("3x5", plainTextPattern("3.5"))).toBeUndefined();
    expect(matchSnippet("ÉTUDE de marché", plainTextPattern("étude"))).toBe("ÉTUDE de marché");
  });

  it("shows about snippetChars characters around the hit on one line, marking the cuts", () => {
    const text = `${"a ".repeat(200)}\nthe NEEDLE here\n${"b ".repeat(200)}`;
    const snippet = matchSnippet(text, plainTextPattern("needle")) ?? "";
    expect(snippet).toMatch(/^….*the NEEDLE here.*…$/);
    expect(snippet).not.toContain("\n");
    expect(snippet.length).toBeLessThanOrEqual(snippetChars + 2);
  });

  it("does not cut before the start or past the end, nor through an emoji", () => {
    expect(matchSnippet(`needle ${"c".repeat(300)}`, plainTextPattern("needle"))).toMatch(/^needle c+…$/);
    expect(matchSnippet(`${"c".repeat(300)} needle`, plainTextPattern("needle"))).toMatch(/^…c+ needle$/);
    const emoji = `${"😀".repeat(100)}needle${"😀".repeat(100)}`;
    const snippet = matchSnippet(emoji, plainTextPattern("needle")) ?? "";
    expect(snippet.replace(/…/g, "")).toMatch(/^(😀)+needle(😀)+$/u);
  });
});
