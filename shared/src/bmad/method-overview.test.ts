import { describe, expect, it } from "vitest";
import type { HelpCatalogueEntry } from "../wire/help-messages.js";
import type { FileListing } from "../wire/projects/file-entry.js";
import { methodOverview } from "./method-overview.js";

const entry = (skill: string, outputs: string, agent_id: string, required = false): HelpCatalogueEntry => ({
  module: "bmm",
  skill,
  name: skill,
  code: "X",
  description: "",
  phase: "anytime",
  required,
  after: [],
  outputLocation: "planning_artifacts",
  outputs,
  agent_id,
});
const catalogue = [
  entry("bmad-product-brief", "product brief", "bmm/analyst"),
  entry("bmad-create-prd", "prd", "bmm/pm", true),
  entry("bmad-validate-prd", "prd validation report", "bmm/pm"),
  entry("bmad-create-architecture", "architecture", "bmm/architect", true),
  entry("bmad-create-epics-and-stories", "epics and stories", "bmm/pm", true),
  entry("bmad-sprint-planning", "sprint status", "bmm/sm", true),
  entry("bmad-dev-story", "story implementation", "bmm/dev", true),
];
const file = (path: string, extra: Partial<FileListing> = {}): FileListing => ({ path, revision: 1, size: 1, sha256: "x", author: { user: "alice", agent_id: "bmm/pm" }, updated_at: "2026-11-25T10:00:00.000Z", read_only: false, ...extra });

describe("the method at a glance", () => {
  it("walks brief → PRD → architecture → epics → sprint status, then building stories", () => {
    const order = [
      ["_bmad-output/planning-artifacts/product-brief.md", "bmad-create-prd"],
      ["_bmad-output/planning-artifacts/prd.md", "bmad-create-architecture"],
      ["_bmad-output/planning-artifacts/architecture.md", "bmad-create-epics-and-stories"],
      ["_bmad-output/planning-artifacts/epics.md", "bmad-sprint-planning"],
      ["_bmad-output/implementation-artifacts/sprint-status.yaml", "bmad-dev-story"],
    ] as const;
    const files: FileListing[] = [];
    expect(methodOverview(files, catalogue, "c.csv").next).toMatchObject({ skill: "bmad-product-brief", agent_id: "bmm/analyst", phase: "analysis" });
    for (const [path, next] of order) {
      files.push(file(path));
      expect(methodOverview(files, catalogue, "c.csv").next?.skill, path).toBe(next);
    }
    const done = methodOverview(files, catalogue, "c.csv");
    expect(done.current).toBe("implementation");
    expect(done.phases.map((phase) => [phase.phase, phase.done, phase.artifacts.map((artifact) => artifact.kind)])).toEqual([
      ["analysis", true, ["product-brief"]],
      ["planning", true, ["prd"]],
      ["solutioning", true, ["architecture", "epics"]],
      ["implementation", false, ["sprint-status"]],
    ]);
  });

  it("counts only the method's documents: not uploads, their Markdown forms, or the code snapshot", () => {
    const files = [
      file("inputs/product-brief.pdf.md", { converted_from: "inputs/product-brief.pdf" }),
      file("docs/prd.md", { read_only: true }),
      file("src/architecture.md"),
      file("_bmad-output/notes.txt"),
    ];
    expect(methodOverview(files, catalogue, "c.csv").phases.flatMap((phase) => phase.artifacts)).toEqual([]);
  });

  it("has no next step without a catalogue, and keeps who wrote each document and when", () => {
    const overview = methodOverview([file("docs/prd.md", { author: { user: "bob", session_id: "s1", agent_id: "bmm/pm" }, updated_at: "2026-11-20T09:00:00.000Z" })], [], null);
    expect(overview).toMatchObject({ next: null, catalogue: null, current: "implementation" });
    expect(overview.phases[1]?.artifacts).toEqual([
      { kind: "prd", label: "PRD", phase: "planning", path: "docs/prd.md", author: { user: "bob", session_id: "s1", agent_id: "bmm/pm" }, updated_at: "2026-11-20T09:00:00.000Z" },
    ]);
  });
});
