import { describe, expect, it } from "vitest";
import { rawText } from "./xml-element-text.js";
import { maxTagDepth, scanElement, type TagElement } from "./xml-tag-scanner.js";

const scan = (source: string) => {
  const result = scanElement(source, source.indexOf("<"));
  if (!result) throw new Error("no element");
  return result;
};
const children = (element: TagElement) => element.children.filter((child): child is TagElement => child.kind === "element");

describe("scanElement", () => {
  it("reads attributes in any order, with single or double quotes, across lines", () => {
    const { root } = scan(`<agent\n  icon='🧪'\n  title = "A &amp; B"\n  NAME='Tess'\n  id="x">body</agent>`);
    expect(root.name).toBe("agent");
    expect(Object.fromEntries(root.attributes)).toEqual({ icon: "🧪", title: "A & B", name: "Tess", id: "x" });
  });

  it("keeps < and > inside quoted attribute values", () => {
    const { root } = scan(`<item cmd="*x" action="if 2 < 3 and 5 > 4 then say <ok>">Compare</item>`);
    expect(root.attributes.get("action")).toBe("if 2 < 3 and 5 > 4 then say <ok>");
    expect(rawText(root)).toBe("Compare");
  });

  it("reads unquoted and bare attributes, and self-closing tags", () => {
    const { root } = scan(`<menu><item cmd=*a/><item cmd="*b" disabled /></menu>`);
    const [first, second] = children(root);
    expect(first?.attributes.get("cmd")).toBe("*a");
    expect(second?.attributes.get("disabled")).toBe("");
  });

  it("keeps CDATA verbatim and skips comments and declarations", () => {
    const { root } = scan(`<role><!-- <b>hidden</b> --><![CDATA[a <b> & c]]><!DOCTYPE x><?pi ?> tail &amp;</role>`);
    expect(rawText(root)).toBe("a <b> & c tail &");
  });

  it("treats a < that starts no tag as text", () => {
    const { root } = scan(`<step>answer in <50 words, a < b, a <- b, and → arrows</step>`);
    expect(rawText(root)).toBe("answer in <50 words, a < b, a <- b, and → arrows");
  });

  it("ignores a stray end tag and notes it", () => {
    const { root, notes } = scan(`<agent><persona>p</persona></stray><menu/></agent>`);
    expect(children(root).map((child) => child.name)).toEqual(["persona", "menu"]);
    expect(notes).toContain("stray </stray> ignored");
  });

  it("closes elements left open by their parent's end tag, and at the end of the text", () => {
    const { root, notes } = scan(`<agent><persona><role>r</persona><menu>`);
    expect(children(root).map((child) => child.name)).toEqual(["persona", "menu"]);
    expect(notes.some((note) => note.includes("<role> not closed"))).toBe(true);
    expect(notes.some((note) => note.includes("not closed before the end of the text"))).toBe(true);
  });

  it("stops at the end of the root element", () => {
    const { root } = scan(`<agent id="a"></agent><agent id="b"></agent>`);
    expect(root.attributes.get("id")).toBe("a");
  });

  it("does not take <agent-bundle> for <agent>", () => {
    expect(scanElement("<agent-bundle>", 0)?.root.name).toBe("agent-bundle");
    expect(scanElement("<a→b>", 0)).toBeUndefined();
  });

  it("turns a tag with an unterminated attribute value into text", () => {
    const { root, notes } = scan(`<agent><item cmd="*x>broken</agent>`);
    expect(children(root)).toEqual([]);
    expect(notes.some((note) => note.includes("unterminated"))).toBe(true);
  });

  it(`keeps tags nested deeper than ${maxTagDepth} as text instead of overflowing`, () => {
    const depth = 10_000;
    const { root, notes } = scan("<a>".repeat(depth) + "x" + "</a>".repeat(depth));
    expect(root.name).toBe("a");
    expect(notes.some((note) => note.startsWith("nesting deeper"))).toBe(true);
    expect(rawText(root)).toContain("x");
  });

  it("scans 1 MB of adversarial markup to the end without throwing", () => {
    // how fast is a measure, not a test (a loaded machine would fail it): bench/ covers the scanner's time
    const hostile = `<agent>${'<i a="<i b=\'<!--<![CDATA[<x y="'.repeat(30_000)}`;
    expect(() => scanElement(hostile, 0)).not.toThrow();
  });
});
