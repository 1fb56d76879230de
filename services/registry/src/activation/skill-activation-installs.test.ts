import { cp, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import type { DiscoveryLimits } from "../config.js";
import { createDiscoveryContext } from "../discovery/discovery-context.js";
import { buildSkillActivation } from "./skill-activation.js";

// A copy of a real 6.12.0 install made by BMAD's own installer (test/support/bmad-install.ts), so the test may
// write a team override into it (docs/bmad-releases.md "Customization layers").
const limits: DiscoveryLimits = { maxFileBytes: 1024 * 1024, maxSources: 5000, maxAgentsPerSource: 200 };
let project: string;

beforeAll(async () => {
  project = await realpath(await mkdtemp(join(tmpdir(), "registry-skills-6.12-")));
  await cp(await ensureBmadInstall({ version: "6.12.0", tool: "claude-code" }), project, { recursive: true });
}, 600_000);
afterAll(() => (project ? rm(project, { recursive: true, force: true }) : undefined));

describe("a skill's activation on a real 6.12.0 install", () => {
  it("gives bmad-prd with {skill-root} as .claude/skills/bmad-prd and its workflow values resolved; a team override changes one", async () => {
    const context = createDiscoveryContext(project, limits);
    const shipped = await buildSkillActivation(context, "bmad-prd", "a PRD for a lighthouse app");
    expect(shipped.data).toMatchObject({ type: "skill", name: "bmad-prd", module: "bmm", path: ".claude/skills/bmad-prd", kind: "workflow", release: "6.12.0", notes: [] });
    expect(shipped.data.files).toContain(".claude/skills/bmad-prd/assets/prd-template.md");
    expect(shipped.data.variables).toContain("planning_artifacts");
    expect(shipped.text).not.toContain("{skill-root}");
    expect(shipped.text).not.toMatch(/\{workflow\.[a-z_]+\}/);
    expect(shipped.text).toContain("--skill .claude/skills/bmad-prd ");
    expect(shipped.text).toContain(".claude/skills/bmad-prd/assets/prd-template.md");
    expect(shipped.text).toContain("{planning_artifacts}/prds");
    expect(shipped.text).toContain("> a PRD for a lighthouse app");
    expect(JSON.stringify(shipped)).not.toContain(project);

    await writeFile(join(project, "_bmad/custom/bmad-prd.toml"), '[workflow]\nprd_output_path = "{project-root}/docs/product/prds"\n');
    const team = await buildSkillActivation(context, "bmad-prd", undefined);
    expect(team.text).toContain("{project-root}/docs/product/prds");
    expect(team.text).not.toContain("{planning_artifacts}/prds");
    expect(team.data.customization["prd_output_path"]).toBe("{project-root}/docs/product/prds");
  });
});
