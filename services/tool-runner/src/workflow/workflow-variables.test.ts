import { describe, expect, it } from "vitest";
import { createVariableResolver, resolveDeep } from "./workflow-variables.js";

const today = new Date("2026-03-04T10:00:00Z");

describe("createVariableResolver", () => {
  it("resolves config references, nested variables and system values", () => {
    const resolve = createVariableResolver({
      workflow: {
        installed_path: "{project-root}/bmad/bmm/workflows/prd",
        instructions: "{installed_path}/instructions.md",
        user_name: "{config_source}:user_name",
        date: "system-generated",
        current_year: "system-generated",
      },
      config: { user_name: "Ada" },
      today,
    });
    expect(resolve("{instructions}")).toBe("{project-root}/bmad/bmm/workflows/prd/instructions.md");
    expect(resolve("{user_name} on {date} ({current_year})")).toBe("Ada on 2026-03-04 (2026)");
  });

  it("maps the output variables to the project's folders the config names, from the workflow and from the config", () => {
    const resolve = createVariableResolver({
      workflow: { output_folder: "{config_source}:output_folder", planning: "{config_source}:planning_artifacts" },
      config: { output_folder: "{project-root}/docs", planning_artifacts: "/srv/elsewhere/planning" },
      today,
    });
    expect(resolve("{output_folder}/prd.md")).toBe("{project-root}/docs/prd.md");
    expect(resolve("{config_source}:output_folder")).toBe("{project-root}/docs");
    // a place outside the project is kept inside it, under the output folder by its last name
    expect(resolve("{planning}/prd.md")).toBe("{project-root}/docs/planning/prd.md");
  });

  it("resolves config values that refer to roots", () => {
    const resolve = createVariableResolver({
      workflow: { tech_docs: "{config_source}:tech_docs" },
      config: { tech_docs: "{project-root}/docs" },
      today,
    });
    expect(resolve("{tech_docs}/x.md")).toBe("{project-root}/docs/x.md");
  });

  it("falls back to the config for a name the workflow does not define", () => {
    const resolve = createVariableResolver({ workflow: {}, config: { project_name: "Demo" }, today });
    expect(resolve("{project_name}")).toBe("Demo");
  });

  it("leaves template placeholders, unknown names and missing config values as written", () => {
    const resolve = createVariableResolver({ workflow: { name: "prd" }, config: undefined, today });
    expect(resolve("{output_folder}/prd-{{date}}-{story_id}.md")).toBe("{project-root}/_bmad-output/prd-{{date}}-{story_id}.md");
    expect(resolve("{config_source}:user_name")).toBe("{config_source}:user_name");
  });

  it("stops on a cycle", () => {
    const resolve = createVariableResolver({ workflow: { a: "x{b}", b: "y{a}", self: "{self}/z" }, config: undefined, today });
    expect(resolve("{a}")).toBe("xy{a}");
    expect(resolve("{self}")).toBe("{self}/z");
  });

  it("ignores names that only exist on the prototype", () => {
    const resolve = createVariableResolver({ workflow: {}, config: {}, today });
    expect(resolve("{constructor}/{toString}/{config_source}:__proto__")).toBe("{constructor}/{toString}/{config_source}:__proto__");
  });
});

describe("resolveDeep", () => {
  it("resolves strings inside mappings and sequences, leaving other values", () => {
    const resolve = (text: string) => text.toUpperCase();
    expect(resolveDeep({ a: ["x", { b: "y" }], c: false, d: 3 }, resolve)).toEqual({ a: ["X", { b: "Y" }], c: false, d: 3 });
  });
});

describe("createVariableResolver limits", () => {
  it("does not expand a value that doubles at every level", () => {
    const workflow: Record<string, string> = { v0: "ab" };
    for (let level = 1; level <= 40; level++) workflow[`v${level}`] = `{v${level - 1}}{v${level - 1}}`;
    const resolved = createVariableResolver({ workflow, config: undefined, today })("{v40}");
    expect(resolved.length).toBeLessThan(64 * 1024);
  });
});
