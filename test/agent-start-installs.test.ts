/**
 * The system's agent start against real installs made by BMAD's own installer (test/support/bmad-install.ts):
 * every agent of a 4.x, 6.0.x and 6.2 install is parsed by the registry's parser and started by the
 * orchestrator's start, reading the install's files; its config is loaded by the system, its output variables
 * name the project's folders as BMAD does (`{project-root}/_bmad-output/…`, docs/projects.md) and no config
 * variable is left for the model to fill. Skills-era agents start through load_skill (services/orchestrator/src/agent/agent-start.test.ts).
 */
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parseAgentFile } from "@agent-orchestrator/shared/bmad";
import { type AgentDefinition, type ToolResult } from "@agent-orchestrator/shared/wire";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { startAgent, toolsForAgent, buildSystemPrompt } from "@agent-orchestrator/orchestrator";

interface Release {
  version: string;
  agentsFolder: string;
  config: string;
  variables: Record<string, string>;
}

const releases: Release[] = [
  {
    version: "4.44.3",
    agentsFolder: ".bmad-core/agents",
    config: "{project-root}/.bmad-core/core-config.yaml",
    variables: { slashPrefix: "BMad", user_name: "User", communication_language: "English", output_folder: "{project-root}/_bmad-output" },
  },
  {
    version: "6.0.4",
    agentsFolder: "_bmad/bmm/agents",
    config: "{project-root}/_bmad/bmm/config.yaml",
    variables: {
      user_name: "Ada",
      communication_language: "English",
      output_folder: "{project-root}/_bmad-output",
      planning_artifacts: "{project-root}/_bmad-output/planning-artifacts",
      implementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts",
      project_knowledge: "{project-root}/docs",
    },
  },
  {
    version: "6.2.0",
    agentsFolder: "_bmad/bmm/agents",
    config: "{project-root}/_bmad/bmm/config.yaml",
    variables: { user_name: "Ada", planning_artifacts: "{project-root}/_bmad-output/planning-artifacts" },
  },
];

/** read_file over the install, for `{project-root}/…` paths only. */
const installReader = (root: string) => async (path: string): Promise<ToolResult> => {
  if (!path.startsWith("{project-root}/")) return { success: false, error: { code: "FILE_NOT_FOUND", message: "File not found" } };
  try {
    return { success: true, path, content: await readFile(join(root, path.slice("{project-root}/".length)), "utf8") };
  } catch {
    return { success: false, error: { code: "FILE_NOT_FOUND", message: "File not found" } };
  }
};

async function agentFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith(".md")).map((entry) => join(entry.parentPath, entry.name));
}

describe.each(releases)("agent start on a real $version install", (release) => {
  let root: string;
  let agents: AgentDefinition[];

  beforeAll(async () => {
    root = await ensureBmadInstall({ version: release.version, tool: "claude-code" });
    const files = await agentFiles(join(root, release.agentsFolder));
    agents = await Promise.all(
      files.map(async (file) => {
        const parsed = parseAgentFile(await readFile(file, "utf8"), file);
        if (!parsed.ok) throw new Error(`${file}: ${parsed.reason}`);
        const { handlers: _handlers, rules: _rules, prompts: _prompts, notes: _notes, skill: _skill, ...agent } = parsed.agent;
        const filePath = relative(root, file);
        return { ...agent, id: `bmm/${parsed.agent.id}`, bundleName: "bmm", source: "module", release: release.version, bundlePath: release.agentsFolder.replace(/\/agents$/, ""), filePath };
      }),
    );
  }, 300_000);

  it("starts every agent with its config loaded once by the system and its variables resolved", async () => {
    expect(agents.length).toBeGreaterThanOrEqual(6);
    for (const agent of agents) {
      const start = await startAgent(agent, { readFile: installReader(root), loadSkill: async () => ({ success: false, error: { code: "SKILL_NOT_FOUND", message: "none" } }) });
      if (start.kind !== "actions") throw new Error(`${agent.filePath} did not start by critical actions`);
      expect(start.files.map((file) => file.path), agent.filePath).toEqual([release.config]);
      expect(start.variables, agent.filePath).toMatchObject(release.variables);
      expect(start.instructions.join("\n"), agent.filePath).not.toMatch(/\{(user_name|communication_language|output_folder)\}/);
    }
  });

  it("builds the analyst's prompt with the tools its menu needs", async () => {
    const analyst = agents.find((agent) => agent.name === "Mary");
    if (!analyst) throw new Error("no analyst");
    const tools = toolsForAgent(analyst, { subagents: false });
    const prompt = buildSystemPrompt(analyst, await startAgent(analyst, { readFile: installReader(root), loadSkill: async () => ({ success: true }) }), { tools });
    expect(prompt).toContain(`--- ${release.config} ---`);
    if (release.version === "4.44.3") {
      expect(tools).toEqual(["read_file", "save_output", "edit_file", "list_files", "find_files", "search_files"]);
      expect(prompt).toContain("This agent's dependencies map to .bmad-core/{type}/{name}");
    }
    if (release.version === "6.0.4") expect(tools).toContain("preload_workflow");
    if (release.version === "6.2.0") {
      expect(tools).toContain("load_skill");
      expect(prompt).toMatch(/BP or fuzzy match on brainstorm-project — .*\(.*skill: bmad-brainstorming/);
    }
  });
});
