/**
 * The real BMAD corpus, official releases fetched from npm at test time and read in place in the install cache
 * (test/support/corpus.ts): 6.0.0-alpha.7 as its installer lays it out, the same release's published package
 * (agent sources, web bundles, the installer's test fixtures) and 4.44.1's package (4.x source layout). Every
 * agent parses and matches what the file says, and nothing in them can crash the parser.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse as parseYamlDirectly } from "yaml";
import { parseAgentFile } from "@agent-orchestrator/shared/bmad";
import { AgentRegistry } from "./agent-registry.js";
import { corpusAgentIds, corpusInstall, corpusPackage, corpusV4Package } from "@agent-orchestrator/testing/corpus";

const repositoryRoot = fileURLToPath(new URL("../../../../", import.meta.url));
const limits = { maxFileBytes: 1024 * 1024, maxSources: 5000, maxAgentsPerSource: 200 };

function walk(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

/** A corpus folder's files, relative to it; `it.each` needs them while the file is collected, hence the top-level await. */
interface CorpusFolder {
  root: string;
  files: string[];
}
async function corpusFolder(obtain: () => Promise<string>): Promise<CorpusFolder> {
  const root = await obtain();
  return { root, files: walk(root).map((path) => relative(root, path)).sort() };
}
// the first run of a machine fetches them from npm (test-prerequisites.ts has usually done it already)
const [install, v6Package, v4Package] = await Promise.all([corpusFolder(corpusInstall), corpusFolder(corpusPackage), corpusFolder(corpusV4Package)]);
const read = (folder: CorpusFolder, path: string) => readFileSync(join(folder.root, path), "utf8");
const v6Agents = install.files.filter((path) => /^bmad\/[^/]+\/agents\/[^/]+\.md$/.test(path) && !path.endsWith("/README.md"));
const v4Agents = v4Package.files.filter((path) => /^(bmad-core|expansion-packs\/[^/]+)\/agents\/[^/]+\.md$/.test(path));

/** What the file says, read with plain regular expressions, independently of the scanner. */
function expectedFromXml(text: string) {
  const agent = /<agent id="([^"]*)" name="([^"]*)" title="([^"]*)"/.exec(text);
  const menu = [...text.matchAll(/<item cmd="([^"]+)"([^>]*)>([^<]*)<\/item>/g)].map((match) => {
    const targets = Object.fromEntries([...(match[2] ?? "").matchAll(/([\w-]+)="([^"]*)"/g)].map((pair) => [pair[1] ?? "", pair[2] ?? ""]));
    return { trigger: match[1], description: match[3] ?? "", targets };
  });
  return { id: agent?.[1], name: agent?.[2], title: agent?.[3], menu };
}

const fieldOf: Record<string, string> = { workflow: "workflow", "validate-workflow": "validateWorkflow", exec: "exec", tmpl: "tmpl", data: "data", action: "action" };

describe("the BMAD corpus", () => {
  it("has the agents this suite expects (1 bmb, 8 bmm, 5 cis, 1 core; 38 v4)", () => {
    expect(v6Agents.map((path) => path.split("/")[1])).toEqual(["bmb", ...Array(8).fill("bmm"), ...Array(5).fill("cis"), "core"]);
    expect(v4Agents).toHaveLength(38);
    expect(v4Agents.filter((path) => read(v4Package, path).includes("\nactivation-instructions:"))).toHaveLength(36);
  });

  it.each(v6Agents)("parses %s as the file says: id, name, title, menu items and their targets", (path) => {
    const text = read(install, path);
    const result = parseAgentFile(text, path);
    if (!result.ok) throw new Error(result.reason);
    const expected = expectedFromXml(text);
    const { agent } = result;
    expect([agent.format, agent.id, agent.name, agent.title]).toEqual(["v6", expected.id, expected.name, expected.title]);
    expect(agent.menu.length).toBeGreaterThanOrEqual(3);
    expect(agent.menu).toHaveLength(expected.menu.length);
    expected.menu.forEach((item, index) => {
      const parsed = agent.menu[index];
      expect(parsed?.trigger).toBe(item.trigger);
      expect(parsed?.description).toBe(item.description.replace(/\s+/g, " ").trim());
      for (const [attribute, value] of Object.entries(item.targets)) {
        expect(parsed?.[fieldOf[attribute] as "workflow"]).toBe(value.replace(/&apos;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, "&"));
      }
    });
    expect(agent.criticalActions.length).toBeGreaterThanOrEqual(5);
    expect(agent.criticalActions.some((action) => /Load and read \{project-root\}\/bmad\/[a-z]+\/config\.yaml NOW/.test(action))).toBe(true);
    expect(agent.handlers.map((handler) => handler.type)).toContain(agent.menu.some((item) => item.workflow) ? "workflow" : agent.handlers[0]?.type);
    expect(agent.rules.length).toBeGreaterThan(0);
    expect(agent.persona.role).not.toBe("");
  });

  it.each(v4Agents)("parses v4 %s as its YAML block says", (path) => {
    const text = read(v4Package, path);
    const result = parseAgentFile(text, path);
    if (!result.ok) throw new Error(result.reason);
    const block = parseYamlDirectly(/```yaml\n([\s\S]*?)\n```/.exec(text)?.[1] ?? "") as Record<string, Record<string, unknown>>;
    const { agent } = result;
    expect([agent.format, agent.id, agent.name, agent.title]).toEqual(["v4", block["agent"]?.["id"], block["agent"]?.["name"], block["agent"]?.["title"]]);
    const commands = block["commands"];
    const expectedCount = Array.isArray(commands) ? commands.length : Object.keys(commands ?? {}).length;
    expect(agent.menu).toHaveLength(expectedCount);
    expect(agent.menu.map((item) => item.trigger.replace(/^\*/, "").split(" ")[0])).toContain("help");
    // `- STEP 1: Read …` is a one-key mapping to YAML; the agent keeps it as the line the file shows
    // (two creative-writing agents of 4.44.1 write `startup:` instead, which the parser does not read as one)
    const instructions = (block["activation-instructions"] ?? []) as unknown as (string | Record<string, string>)[];
    expect(agent.criticalActions).toEqual(instructions.map((entry) => (typeof entry === "string" ? entry : Object.entries(entry).map(([key, value]) => `${key}: ${value}`).join(""))));
  });

  it("parses every agent file of the published package (sources, web bundles, its own install), or rejects it with a reason", () => {
    const agentFiles = v6Package.files.filter((path) => /\/agents\/[^/]+\.(md|xml|ya?ml)$/.test(path));
    expect(agentFiles).toHaveLength(39);
    const outcomes = Object.fromEntries(agentFiles.map((path) => {
      const result = parseAgentFile(read(v6Package, path), path);
      return [path, result.ok ? `${result.agent.format} ${result.agent.name}` : `rejected: ${result.reason}`];
    }));
    expect(outcomes).toMatchObject({
      "src/modules/bmm/agents/pm.agent.yaml": "v6-source John",
      "src/core/agents/bmad-web-orchestrator.agent.xml": "v6 BMad Orchestrator",
      "web-bundles/bmm/agents/dev.xml": "v6 Amelia",
      "bmad/bmb/agents/bmad-builder.md": "v6 BMad Builder",
    });
    for (const outcome of Object.values(outcomes)) expect(outcome).toMatch(/^(v6|v6-early|v6-source|v4) \S|^rejected: \S/);
  });

  it("never crashes on any .md, .xml or .yaml file of the install or the packages, the installer's invalid test agents among them", () => {
    const files = [install, v6Package, v4Package].flatMap((folder) => folder.files.filter((path) => /\.(md|xml|ya?ml)$/.test(path)).map((path) => ({ folder, path })));
    expect(files.length).toBeGreaterThan(900);
    expect(files.filter(({ path }) => path.startsWith("test/fixtures/agent-schema/invalid/")).length).toBeGreaterThan(20);
    let agents = 0;
    for (const { folder, path } of files) {
      const result = parseAgentFile(read(folder, path), path);
      if (result.ok) agents++;
      else expect(result.reason).not.toBe("");
    }
    expect(agents).toBeGreaterThanOrEqual(v6Agents.length + v4Agents.length);
  });

  it("serves the 15 installed agents with BMAD_ROOT at the install, and none of its .claude/ launchers", async () => {
    const registry = new AgentRegistry(install.root, limits);
    await registry.rescan();
    expect(registry.listAgents().map((agent) => agent.id)).toEqual([...corpusAgentIds]);
    expect(registry.getAgent("bmm/pm")?.definition).toMatchObject({ name: "John", bundleName: "bmm", source: "module", bundlePath: "bmad/bmm", filePath: "bmad/bmm/agents/pm.md" });
    const techWriter = registry.getAgent("bmm/tech-writer")?.definition;
    expect(techWriter?.menu.filter((item) => item.todo).map((item) => item.trigger)).toEqual(["*create-api-docs", "*create-architecture-docs", "*create-user-guide", "*audit-docs"]);
    const { bundles } = registry.listBundles();
    expect(bundles.map((bundle) => `${bundle.name}:${bundle.status}:${bundle.agents.length}`)).toEqual(["bmb:ok:1", "bmm:ok:8", "cis:ok:5", "core:ok:1"]);
    const warnings = bundles.flatMap((bundle) => bundle.warnings);
    expect(warnings.map((warning) => warning.code)).toContain("PLACEHOLDER");
    expect(warnings.every((warning) => warning.code === "PLACEHOLDER")).toBe(true);
  });
});

describe("the repository's own sample bundle", () => {
  it("serves idea-coach with its menu and critical actions, BMAD_ROOT at the repository root", async () => {
    const registry = new AgentRegistry(repositoryRoot, limits);
    await registry.rescan();
    expect(registry.listAgents().find((agent) => agent.id === "idea-coach")).toEqual({
      id: "idea-coach",
      name: "Nova",
      title: "Idea Coach",
      icon: "💡",
      description: "Asks one good question at a time and writes your idea up as a one-page brief.",
      bundleName: "idea-studio",
      source: "bundle",
      format: "v6-early",
    });
    const definition = registry.getAgent("idea-coach")?.definition;
    expect(definition?.menu).toContainEqual({
      trigger: "*idea-brief",
      description: "Turn a rough idea into a one-page brief",
      workflow: "{bundle-root}/workflows/idea-brief/workflow.yaml",
    });
    expect(definition?.criticalActions).toEqual([
      "Load into memory {bundle-root}/config.yaml and set variables: project_name, output_folder, user_name, communication_language",
      "Remember the user's name is {user_name}",
      "ALWAYS communicate in {communication_language}",
    ]);
    expect(definition).toMatchObject({ bundlePath: "bmad/custom/bundles/idea-studio", filePath: "bmad/custom/bundles/idea-studio/agents/idea-coach.md" });
  });
});
