import { readFileSync } from "node:fs";
import { join } from "node:path";
import { methodOverview } from "@agent-orchestrator/shared/bmad";
import { type FileListing } from "@agent-orchestrator/shared/wire";
import { parse as parseCsv } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { AgentRegistry } from "../discovery/agent-registry.js";
import { loadHelpCatalogue } from "./help-catalogue.js";

/**
 * The help catalogue of installs made by BMAD's own installer: every row of the install's own catalogue is
 * read (the expectation counts the CSV's rows itself), the entries that make the method's documents get the
 * agent whose menu runs them, and the next step of an empty project is the product brief with the analyst.
 */
const limits = { maxFileBytes: 1024 * 1024, maxSources: 5000, maxAgentsPerSource: 200 };

async function catalogueOf(version: string) {
  const root = await ensureBmadInstall({ version, tool: "claude-code" });
  const registry = new AgentRegistry(root, limits);
  await registry.rescan();
  const agents = registry.listAgents().flatMap((summary) => registry.getAgent(summary.id)?.definition ?? []);
  return { root, ...(await loadHelpCatalogue(root, agents)) };
}

const file = (path: string, user = "alice"): FileListing => ({ path, revision: 1, size: 10, sha256: "x", author: { user }, updated_at: "2026-11-25T10:00:00.000Z", read_only: false });

describe.each(["6.0.4", "6.5.0", "6.12.0"])("the help catalogue of BMAD %s", (version) => {
  it("reads every row of the install's catalogue and finds the agents that run the method's documents", async () => {
    const { root, entries, source } = await catalogueOf(version);
    // 6.5's merged catalogue has the 6.0 header over rows of the new layout: its modules' own are read
    const files = version === "6.5.0" ? ["_bmad/bmm/module-help.csv", "_bmad/core/module-help.csv"] : ["_bmad/_config/bmad-help.csv"];
    expect(source).toBe(files.join(", "));
    const rows = files.flatMap((name) =>
      (parseCsv(readFileSync(join(root, name), "utf8"), { columns: true, relax_column_count: true }) as Array<Record<string, string>>).filter(
        (row) => (row["skill"] ?? row["command"] ?? "") !== "" && row["skill"] !== "_meta",
      ),
    );
    expect(entries).toHaveLength(rows.length);
    // by skill: some rows of BMAD's own 6.5 catalogue lack a column, so their `outputs` is empty
    expect(entries.find((entry) => /product-brief$/.test(entry.skill))?.agent_id).toBe("bmm/analyst");
    expect(entries.find((entry) => /(^|-)prd$/.test(entry.skill))?.agent_id).toBe("bmm/pm");
  }, 600_000);

  it("recommends the brief with the analyst for an empty project, then the PRD with the PM once the brief is there", async () => {
    const { entries, source } = await catalogueOf(version);
    const empty = methodOverview([], entries, source);
    expect(empty).toMatchObject({ current: "analysis", next: { phase: "analysis", agent_id: "bmm/analyst" } });
    const briefed = methodOverview([file("_bmad-output/planning-artifacts/product-brief-lighthouse.md")], entries, source);
    expect(briefed).toMatchObject({ current: "planning", next: { phase: "planning", agent_id: "bmm/pm" } });
    expect(briefed.phases[0]).toMatchObject({ phase: "analysis", done: true, artifacts: [{ kind: "product-brief", path: "_bmad-output/planning-artifacts/product-brief-lighthouse.md", author: { user: "alice" } }] });
  }, 600_000);
});

describe("installs without a catalogue", () => {
  it("have no entries and no next step: 4.x ships none", async () => {
    const { entries, source } = await catalogueOf("4.44.3");
    expect({ entries, source }).toEqual({ entries: [], source: null });
    expect(methodOverview([file("docs/prd.md")], entries, source)).toMatchObject({ next: null, phases: [{ phase: "analysis" }, { phase: "planning", artifacts: [{ kind: "prd" }] }, {}, {}] });
  }, 600_000);
});
