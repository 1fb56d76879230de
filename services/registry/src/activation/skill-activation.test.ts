import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { SkillActivationData } from "@agent-orchestrator/shared/wire";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBmadTree, type BmadTree } from "../testing/bmad-tree.js";
import type { DiscoveryLimits } from "../config.js";
import { createDiscoveryContext } from "../discovery/discovery-context.js";
import { buildSkillActivation } from "./skill-activation.js";

const limits: DiscoveryLimits = { maxFileBytes: 64 * 1024, maxSources: 100, maxAgentsPerSource: 50 };

const tidyDesk = [
  "---",
  "name: tidy-desk",
  "description: Tidies a desk, one drawer at a time",
  "---",
  "# Tidy Desk",
  "",
  "1. Read `{skill-root}/steps/one.md` as {skill-name}; greet {user_name}.",
  "2. Use {workflow.layout} and save to {workflow.output}/{{drawer}}.",
  "3. Extra steps: {workflow.extra_steps}",
  "",
].join("\n");

const tidyDeskCustomization = ['[workflow]', 'layout = "assets/layout.md"', 'output = "{planning_artifacts}/desks"', 'extra_steps = ["Dust the lamp"]', ""].join("\n");

let tree: BmadTree;
beforeEach(async () => {
  tree = await createBmadTree();
  await tree.write({
    "_bmad/_config/skill-manifest.csv": 'canonicalId,name,description,module,path\n"tidy-desk","tidy-desk","Tidies","studio","_bmad/studio/tidy-desk/SKILL.md"\n',
    "_bmad/_config/manifest.yaml": "installation:\n  version: 6.9.9\n",
    ".cursor/skills/tidy-desk/SKILL.md": tidyDesk.replace("Tidies a desk", "The agents copy"),
    ".claude/skills/tidy-desk/SKILL.md": tidyDesk,
    ".claude/skills/tidy-desk/customize.toml": tidyDeskCustomization,
    ".claude/skills/tidy-desk/steps/one.md": "Open the first drawer.\n",
    ".claude/skills/tidy-desk/assets/layout.md": "A desk layout.\n",
    ".claude/skills/tidy-desk/.env": "SECRET=1\n",
    "_bmad/bmm/workflows/plan/sweep-floor/SKILL.md": "---\nname: sweep-floor\ndescription: Sweeps\n---\nSweep from {skill-root}.\n",
    "_bmad/bmm/workflows/plan/sweep-floor/steps/one.md": "Start at the door.\n",
  });
});
afterEach(() => tree.cleanup());

const build = (name: string, userContext?: string) => buildSkillActivation(createDiscoveryContext(tree.root, limits), name, userContext);

describe("buildSkillActivation", () => {
  it("resolves skill-root to the project-relative folder and workflow values, keeping config variables, with the user's request", async () => {
    const { data, text } = await build("tidy-desk", "tidy the left drawer\nfirst");
    expect(SkillActivationData.parse(data)).toEqual(data);
    expect(data).toMatchObject({
      type: "skill",
      name: "tidy-desk",
      description: "Tidies a desk, one drawer at a time",
      module: "studio",
      path: ".claude/skills/tidy-desk",
      kind: "workflow",
      release: "6.9.9",
      files: [".claude/skills/tidy-desk/assets/layout.md", ".claude/skills/tidy-desk/customize.toml", ".claude/skills/tidy-desk/steps/one.md"],
      filesTruncated: false,
      userContext: "tidy the left drawer\nfirst",
      notes: [],
    });
    expect(data.customization).toMatchObject({ layout: "assets/layout.md", extra_steps: ["Dust the lamp"] });
    expect(data.variables).toEqual(["drawer", "planning_artifacts", "user_name"]);
    expect(text).toContain("1. Read `.claude/skills/tidy-desk/steps/one.md` as tidy-desk; greet {user_name}.");
    expect(text).toContain("2. Use .claude/skills/tidy-desk/assets/layout.md and save to {planning_artifacts}/desks/{{drawer}}.");
    expect(text).toContain("3. Extra steps: \n- Dust the lamp\n");
    expect(text).toContain("## USER REQUEST\n\n> tidy the left drawer\n> first");
    expect(text).not.toContain("name: tidy-desk");
    expect(text).not.toContain("The agents copy");
  });

  it("merges the team and personal layers over customize.toml, and notes a layer that is not TOML", async () => {
    await tree.write({ "_bmad/custom/tidy-desk.toml": '[workflow]\noutput = "{project-root}/team-desks"\nextra_steps = ["Water the plant"]\n' });
    const { data, text } = await build("tidy-desk");
    expect(text).toContain("save to {project-root}/team-desks/{{drawer}}");
    expect(text).toContain("\n- Dust the lamp\n- Water the plant\n");
    expect(data).not.toHaveProperty("userContext");
    expect(text).not.toContain("USER REQUEST");
    await tree.write({ "_bmad/custom/tidy-desk.user.toml": "[workflow\n" });
    const broken = await build("tidy-desk");
    expect(broken.data.notes).toEqual([expect.stringContaining("_bmad/custom/tidy-desk.user.toml")]);
    expect(broken.text).toContain("team-desks");
  });

  it("finds a skill kept under _bmad/ (6.2), taking its module from the folder", async () => {
    await tree.remove("_bmad/_config/skill-manifest.csv");
    const { data, text } = await build("sweep-floor");
    expect(data).toMatchObject({ path: "_bmad/bmm/workflows/plan/sweep-floor", module: "bmm", kind: "skill", files: ["_bmad/bmm/workflows/plan/sweep-floor/steps/one.md"] });
    expect(text).toContain("Sweep from _bmad/bmm/workflows/plan/sweep-floor.");
  });

  it("says SKILL_NOT_FOUND with close names, and never follows a skill folder out of the project", async () => {
    await expect(build("tidy-dsk")).rejects.toMatchObject({ code: "SKILL_NOT_FOUND", message: expect.stringContaining("tidy-desk") });
    const outside = await createBmadTree();
    try {
      await outside.write({ "escape/SKILL.md": "---\nname: escape\n---\nOutside.\n" });
      await symlink(join(outside.root, "escape"), join(tree.root, ".claude/skills/escape"));
      const error = await build("escape").catch((reason: unknown) => reason);
      expect(AppError.is(error) && error.code).toBe("SKILL_NOT_FOUND");
    } finally {
      await outside.cleanup();
    }
  });
});
