import { createLogger, LoadedSkill } from "@agent-orchestrator/shared";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManifestStore } from "../manifest/manifest-store.js";
import { createInstalledProjectFixture, type InstalledProjectFixture } from "../testing/installed-project-fixture.js";
import { fitSkillToBudget, loadSkillTool, truncationMarker } from "./load-skill-tool.js";
import { readFileTool } from "./read-file-tool.js";
import { jsonBytes } from "./reply-budget.js";
import type { ToolDependencies } from "./tool-handler.js";
import { fixtureQuota } from "../testing/sandbox-fixture.js";

const logger = createLogger("tool-runner-test", "silent");
let fixture: InstalledProjectFixture;
let deps: ToolDependencies;
beforeEach(async () => {
  fixture = await createInstalledProjectFixture({ ".claude/skills/tidy-desk/SKILL.md": `---\nname: tidy-desk\n---\n${"Tidy every drawer. ".repeat(200)}\n` });
  deps = { sandbox: fixture.sandbox, manifests: new ManifestStore({ sandbox: fixture.sandbox, logger, quota: fixtureQuota }), replyBudget: () => 1_000_000, logger };
});
afterEach(() => fixture.cleanup());

describe("loadSkillTool", () => {
  it("returns a LoadedSkill whose files read_file opens, and records the load in the manifest", async () => {
    const context = fixture.context(".claude/skills/tidy-desk");
    const skill = LoadedSkill.parse(await loadSkillTool({ name: "tidy-desk" }, context, deps));
    const reference = skill.files.find((file) => file.includes("/references/"));
    expect(reference).toBe("{project-root}/.claude/skills/tidy-desk/references/order.md");
    expect(await readFileTool({ file_path: reference ?? "" }, context, deps)).toMatchObject({ success: true, path: reference, content: "Books first.\n" });
    const manifest = await deps.manifests.read(context.session_id);
    expect(manifest?.workflows.map((workflow) => workflow.path)).toEqual(["{project-root}/.claude/skills/tidy-desk"]);
  });

  it("records nothing for the agent's own start, whose skill is not a workflow the user ran; the skill is the same", async () => {
    const context = fixture.context(".claude/skills/tidy-desk");
    const started = LoadedSkill.parse(await loadSkillTool({ name: "tidy-desk" }, { ...context, agent_start: true }, deps));
    expect(await deps.manifests.read(context.session_id)).toBeUndefined();
    const asked = LoadedSkill.parse(await loadSkillTool({ name: "tidy-desk" }, context, deps));
    expect(started).toEqual(asked);
    expect((await deps.manifests.read(context.session_id))?.workflows).toHaveLength(1);
  });

  it("names the session's agent, bundle and owner in a manifest it creates, so the owner can list the session's files", async () => {
    const context = { ...fixture.context(".claude/skills/tidy-desk"), session: { agent: "bmm/analyst", bundle: "bmm", owner: "alice" } };
    await loadSkillTool({ name: "tidy-desk" }, context, deps);
    expect(await deps.manifests.read(context.session_id)).toMatchObject({ agent: "bmm/analyst", bundle: "bmm", owner: "alice", status: "running" });
  });

  it("cuts the instructions to fit the reply budget, with a marker and a note", async () => {
    const skill = LoadedSkill.parse(await loadSkillTool({ name: "tidy-desk" }, fixture.context(), { ...deps, replyBudget: () => 1500 }));
    expect(jsonBytes(skill)).toBeLessThanOrEqual(1500);
    expect(skill.instructions.endsWith(truncationMarker)).toBe(true);
    expect(skill.notes).toContain("{project-root}/.claude/skills/tidy-desk/SKILL.md was cut to fit the reply");
  });

  it("cuts the largest of instructions and facts first, and fails only when nothing is left to cut", () => {
    const skill: LoadedSkill = {
      success: true,
      name: "n",
      description: "",
      path: "{project-root}/.claude/skills/n",
      kind: "skill",
      instructions: "short",
      customization: {},
      variables: {},
      facts: [{ source: "{project-root}/docs/big.md", content: "b".repeat(5000) }],
      files: [],
      notes: [],
    };
    fitSkillToBudget(skill, 1200);
    expect(jsonBytes(skill)).toBeLessThanOrEqual(1200);
    expect(skill.instructions).toBe("short");
    expect(skill.facts[0]?.content.endsWith(truncationMarker)).toBe(true);
    expect(() => fitSkillToBudget({ ...skill, files: ["x".repeat(2000)] }, 1200)).toThrow(expect.objectContaining({ code: "PAYLOAD_TOO_LARGE" }));
  });
});
