import { describe, expect, it } from "vitest";
import { customizationKind, mergeLayers, parseTomlLayer, skillOverrideLayers, structuralMerge } from "./customization.js";

describe("BMAD customization merge", () => {
  it("lets a later scalar win and deep-merges tables", () => {
    const merged = mergeLayers([{ agent: { icon: "📊", name: "Mary", nested: { a: 1 } } }, { agent: { icon: "🔎", nested: { b: 2 } } }]);
    expect(merged).toEqual({ agent: { icon: "🔎", name: "Mary", nested: { a: 1, b: 2 } } });
  });

  it("appends plain arrays", () => {
    expect(structuralMerge({ principles: ["one"] }, { principles: ["two"] })).toEqual({ principles: ["one", "two"] });
  });

  it("replaces tables of a keyed array by code and appends new codes, in place", () => {
    const base = { menu: [{ code: "BP", skill: "a" }, { code: "MR", skill: "b" }] };
    const team = { menu: [{ code: "BP", prompt: "custom" }, { code: "ZZ", skill: "z" }] };
    expect(structuralMerge(base, team)).toEqual({ menu: [{ code: "BP", prompt: "custom" }, { code: "MR", skill: "b" }, { code: "ZZ", skill: "z" }] });
  });

  it("keys by id when the tables have no code", () => {
    expect(structuralMerge({ x: [{ id: "a", v: 1 }] }, { x: [{ id: "a", v: 2 }] })).toEqual({ x: [{ id: "a", v: 2 }] });
  });

  it("appends tables that are not all keyed", () => {
    expect(structuralMerge({ x: [{ code: "a" }] }, { x: [{ other: 1 }] })).toEqual({ x: [{ code: "a" }, { other: 1 }] });
  });

  it("parses TOML and reports invalid text without throwing", () => {
    expect(parseTomlLayer('[agent]\nicon = "📊"')).toEqual({ ok: true, value: { agent: { icon: "📊" } } });
    const bad = parseTomlLayer("[agent\nicon=");
    expect(bad.ok).toBe(false);
  });

  it("drops keys that would reach an object prototype", () => {
    const parsed = parseTomlLayer('[agent]\n"__proto__" = { polluted = true }\nicon = "x"');
    expect(parsed).toEqual({ ok: true, value: { agent: { icon: "x" } } });
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("names a skill's team and personal override files, in merge order", () => {
    expect(skillOverrideLayers("bmad-prd")).toEqual(["custom/bmad-prd.toml", "custom/bmad-prd.user.toml"]);
  });

  it("tells an agent, a workflow and a plain skill apart by their tables", () => {
    expect(customizationKind({ agent: { icon: "x" }, workflow: {} })).toEqual({ kind: "agent", table: { icon: "x" } });
    expect(customizationKind({ workflow: { prd_template: "t" } })).toEqual({ kind: "workflow", table: { prd_template: "t" } });
    expect(customizationKind({ other: 1 })).toEqual({ kind: "skill", table: { other: 1 } });
  });
});
