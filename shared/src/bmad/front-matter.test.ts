import { describe, expect, it } from "vitest";
import { readFrontMatter } from "./front-matter.js";

describe("readFrontMatter", () => {
  it("reads name and description from YAML front matter", () => {
    expect(readFrontMatter("---\nname: 'pm'\ndescription: Product Manager\n---\n# pm\n")).toEqual({ name: "pm", description: "Product Manager" });
  });

  it("returns nothing for text without front matter", () => {
    expect(readFrontMatter("# Title\n---\nname: x\n---\n")).toEqual({ name: "", description: "" });
  });

  it.each(["js", "javascript", "coffee"])("ignores ---%s front matter without evaluating it (docs/security.md case 84)", (language) => {
    const marker = `__frontMatter_${language}`;
    const result = readFrontMatter(`---${language}\nglobalThis.${marker} = 1; module.exports = { name: "x" }\n---\nbody`);
    expect(result.name).toBe("");
    expect(result.note).toContain(`"---${language}" ignored`);
    expect((globalThis as Record<string, unknown>)[marker]).toBeUndefined();
  });

  it("notes invalid or unclosed front matter instead of failing", () => {
    expect(readFrontMatter("---\nname: [x\n---\n").note).toMatch(/not valid YAML/);
    expect(readFrontMatter("---\nname: x\n").note).toBe("front matter not closed; ignored");
  });
});
