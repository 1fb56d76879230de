import { describe, expect, it } from "vitest";
import { cell, parseCsvTable } from "./csv-table.js";

describe("parseCsvTable", () => {
  it("reads quoted fields with commas, doubled quotes and line breaks by column name", () => {
    const parsed = parseCsvTable('name,title,path\n"owl","Night, and ""wise""","a/b.md"\n"fox","Two\nlines",c.md\n');
    expect(parsed).toEqual({
      ok: true,
      value: [
        { name: "owl", title: 'Night, and "wise"', path: "a/b.md" },
        { name: "fox", title: "Two\nlines", path: "c.md" },
      ],
    });
  });

  it("tolerates short rows and never builds prototype keys from the header", () => {
    const parsed = parseCsvTable("__proto__,name,name\nx,owl,other\nonly\n");
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value).toEqual([{ name: "owl" }, { name: "" }]);
    expect(Object.getPrototypeOf(parsed.value[0])).toBe(Object.prototype);
    expect(cell(parsed.value[0] ?? {}, "missing")).toBe("");
  });

  it("reports a broken file instead of throwing", () => {
    const parsed = parseCsvTable('name\n"unclosed\n');
    expect(parsed.ok).toBe(false);
  });
});
