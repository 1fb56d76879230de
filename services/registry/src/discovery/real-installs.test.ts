import { readdirSync, readFileSync } from "node:fs";
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { isTable, parseTomlLayer } from "@agent-orchestrator/shared/bmad";
import { ActivationData } from "@agent-orchestrator/shared/wire";
import { parse as parseCsv } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { buildActivation } from "../activation/activation-document.js";
import { AgentRegistry } from "./agent-registry.js";
import type { DiscoveryLimits } from "../config.js";

/**
 * The registry against installs made by BMAD's own installer (test/support/bmad-install.ts, cached between
 * runs): every agent an install ships is listed under a stable id, with its name and icon, and nothing in
 * it is reported invalid. The expected list is read from the install itself, never from the registry.
 */
const limits: DiscoveryLimits = { maxFileBytes: 1024 * 1024, maxSources: 5000, maxAgentsPerSource: 200 };
const installTimeoutMs = 600_000;

const installs = [
  { version: "4.44.3", tool: "claude-code" },
  { version: "6.0.4", tool: "claude-code" },
  { version: "6.2.0", tool: "claude-code" },
  { version: "6.3.0", tool: "claude-code" },
  { version: "6.3.0", tool: "codex" },
  { version: "6.5.0", tool: "claude-code" },
  { version: "6.12.0", tool: "claude-code" },
  { version: "6.12.0", tool: "codex" },
] as const;

interface Shipped {
  id: string;
  name?: string;
  icon?: string;
}

/** The agents an install says it ships, by the install's own lists (docs/bmad-releases.md). */
function shippedAgents(root: string): Shipped[] {
  const entries = readdirSync(root);
  if (entries.includes(".bmad-core")) {
    return readdirSync(join(root, ".bmad-core/agents"))
      .filter((file) => file.endsWith(".md"))
      .map((file) => ({ id: `bmm/${basename(file, ".md")}` }));
  }
  const config = join(root, "_bmad/config.toml");
  if (entries.includes("_bmad") && readdirSync(join(root, "_bmad")).includes("config.toml")) {
    const parsed = parseTomlLayer(readFileSync(config, "utf8"));
    if (!parsed.ok) throw new Error(parsed.reason);
    const agents = parsed.value["agents"];
    if (!isTable(agents)) throw new Error("config.toml lists no agents");
    const skillFolders = readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name.startsWith(".") && readdirSync(join(root, entry.name)).includes("skills"))
      .map((entry) => entry.name);
    const agentSkills = new Set(skillFolders.flatMap((host) => readdirSync(join(root, host, "skills")).filter((skill) => skill.startsWith("bmad-agent-"))));
    expect([...agentSkills].sort()).toEqual(Object.keys(agents).sort());
    return Object.entries(agents).map(([skill, descriptor]) => {
      const table = isTable(descriptor) ? descriptor : {};
      return { id: `${String(table["module"])}/${skill.replace(/^bmad-agent-/, "")}`, name: String(table["name"]), icon: String(table["icon"]) };
    });
  }
  const rows = parseCsv(readFileSync(join(root, "_bmad/_config/agent-manifest.csv"), "utf8"), { columns: true }) as Record<string, string>[];
  return rows.map((row) => {
    const file = row["path"] ?? "";
    const short = file.endsWith(".md") ? basename(file, ".md") : (row["name"] ?? "").replace(/^bmad-agent-/, "");
    return { id: `${row["module"]}/${short}`, name: row["displayName"] ?? "", icon: row["icon"] ?? "" };
  });
}

describe.each(installs)("a real BMAD $version install for $tool", ({ version, tool }) => {
  let root: string;
  let registry: AgentRegistry;
  beforeAll(async () => {
    root = await ensureBmadInstall({ version, tool });
    registry = new AgentRegistry(root, limits);
    await registry.rescan();
  }, installTimeoutMs);

  it("lists every shipped agent under its stable id, with its name, icon and release", () => {
    const shipped = shippedAgents(root);
    expect(shipped.length).toBeGreaterThan(0);
    expect(registry.listAgents().map((agent) => agent.id).sort()).toEqual(shipped.map((agent) => agent.id).sort());
    for (const agent of shipped) {
      const served = registry.listAgents().find((candidate) => candidate.id === agent.id);
      expect(served).toMatchObject({ release: version, ...(agent.name ? { name: agent.name } : {}), ...(agent.icon ? { icon: agent.icon } : {}) });
    }
    expect(registry.getAgent("bmm/analyst")?.definition).toMatchObject({ name: "Mary", icon: "📊", title: "Business Analyst", bundleName: "bmm" });
  });

  it("reports nothing invalid and no install-wide warning", () => {
    const { bundles, warnings } = registry.listBundles();
    expect(warnings).toEqual([]);
    expect(bundles.filter((bundle) => bundle.status !== "ok")).toEqual([]);
    expect(bundles.every((bundle) => bundle.version === version)).toBe(true);
    const problems = bundles.flatMap((bundle) => bundle.warnings).filter((warning) => !/serves no agents/.test(warning.message));
    expect(problems).toEqual([]);
  });

  it("builds an activation document for every agent, without host paths", () => {
    for (const summary of registry.listAgents()) {
      const record = registry.getAgent(summary.id);
      if (!record) throw new Error(summary.id);
      const { data, text } = buildActivation(record, { variables: { user_name: "Ada" } });
      expect(ActivationData.parse(data)).toEqual(data);
      expect(data.menu.length).toBeGreaterThan(0);
      expect(text).toContain(summary.name);
      expect(`${JSON.stringify(data)}${text}`).not.toContain(root);
      if (record.definition.format === "skill") expect(text).not.toMatch(/resolve_customization/);
    }
  });
});

describe("team and user overrides of a real 6.12.0 install", () => {
  let root: string;
  beforeAll(async () => {
    const cached = await ensureBmadInstall({ version: "6.12.0", tool: "claude-code" });
    // the cache is shared between runs: overrides go into a copy
    root = await mkdtemp(join(tmpdir(), "registry-bmad-6.12-"));
    await cp(cached, root, { recursive: true });
  }, installTimeoutMs);
  afterAll(() => rm(root, { recursive: true, force: true }));

  it("change the analyst's icon, menu, principles and facts as BMAD's merge rules say", async () => {
    const registry = new AgentRegistry(root, limits);
    await registry.rescan();
    const before = registry.getAgent("bmm/analyst");
    const baseMenu = before?.definition.menu ?? [];
    expect(baseMenu.find((item) => item.trigger === "BP")).toEqual({ trigger: "BP", description: "Expert guided brainstorming facilitation", skill: "bmad-brainstorming" });

    await writeFile(
      join(root, "_bmad/custom/bmad-agent-analyst.toml"),
      [
        "[agent]",
        'icon = "🔭"',
        'principles = ["Cite the source of every number."]',
        "",
        "[[agent.menu]]",
        'code = "BP"',
        'description = "Brainstorm with our team template"',
        'prompt = "Brainstorm using the team template in docs/brainstorm.md."',
        "",
        "[[agent.menu]]",
        'code = "XR"',
        'description = "Review our competitor notes"',
        'skill = "team-competitor-review"',
        "",
      ].join("\n"),
    );
    await writeFile(join(root, "_bmad/custom/bmad-agent-analyst.user.toml"), '[agent]\nicon = "🦊"\npersistent_facts = ["Ada prefers tables to prose."]\n');
    const change = await registry.rescan();
    expect(change?.updated).toEqual(["bmm/analyst"]);

    const after = registry.getAgent("bmm/analyst");
    expect(after?.definition.icon).toBe("🦊");
    expect(after?.definition.menu.map((item) => item.trigger)).toEqual([...baseMenu.map((item) => item.trigger), "XR"]);
    expect(after?.definition.menu.find((item) => item.trigger === "BP")).toEqual({
      trigger: "BP",
      description: "Brainstorm with our team template",
      prompt: "Brainstorm using the team template in docs/brainstorm.md.",
    });
    expect(after?.definition.menu.at(-1)).toEqual({ trigger: "XR", description: "Review our competitor notes", skill: "team-competitor-review" });
    expect(after?.definition.persona.principles.split("\n").at(-1)).toBe("Cite the source of every number.");
    expect(after?.definition.persona.principles.split("\n").length).toBe((before?.definition.persona.principles.split("\n").length ?? 0) + 1);

    const { data, text } = buildActivation(after ?? (before as never));
    expect(data.customization?.persistentFacts.at(-1)).toBe("Ada prefers tables to prose.");
    expect(text).toContain("🦊 **Agent Activated: Mary** (Business Analyst)");
    expect(text).toContain("- Ada prefers tables to prose.");
    expect(registry.listBundles().bundles.flatMap((bundle) => bundle.warnings).filter((warning) => !/serves no agents/.test(warning.message))).toEqual([]);
  });
});
