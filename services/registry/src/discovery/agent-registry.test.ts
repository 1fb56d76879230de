import { execFileSync } from "node:child_process";
import { chmod, mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agentFile, createBmadTree, multiAgentBundle, standaloneBundle, type BmadTree } from "../testing/bmad-tree.js";
import { agentCustomization, customizedSkill } from "../testing/install-files.js";
import { AgentRegistry } from "./agent-registry.js";
import type { DiscoveryLimits } from "../config.js";

const limits: DiscoveryLimits = { maxFileBytes: 64 * 1024, maxSources: 100, maxAgentsPerSource: 20 };

describe(`AgentRegistry: bundle discovery (docs/design.md "Sources")`, () => {
  let tree: BmadTree;
  let registry: AgentRegistry;
  beforeEach(async () => {
    tree = await createBmadTree();
    registry = new AgentRegistry(tree.root, limits);
  });
  afterEach(() => tree.cleanup());

  const bundle = (name: string) => registry.listBundles().bundles.find((entry) => entry.name === name);
  const startFingerprintOf = (id: string) => registry.getAgent(id)?.definition.startFingerprint;
  const warningsOf = (name: string) => bundle(name)?.warnings.map((warning) => `${warning.code} ${warning.message}`) ?? [];

  it("parses a multi-agent bundle and lists only its entry_point agents", async () => {
    await tree.write(multiAgentBundle("studio", [{ id: "lead", name: "Lena" }, { id: "helper", name: "Hal", entry_point: false }, { id: "second", name: "Sam" }]));
    await registry.rescan();
    expect(registry.listAgents().map((agent) => agent.id)).toEqual(["lead", "second"]);
    expect(registry.getAgent("helper")).toBeUndefined();
    expect(bundle("studio")).toMatchObject({ status: "ok", type: "bundle", version: "1.0.0", agents: ["lead", "second"], warnings: [] });
  });

  it("parses a standalone bundle, with paths relative to BMAD_ROOT", async () => {
    await tree.write(standaloneBundle("solo-folder", { id: "solo", name: "Sol" }, "solo"));
    await registry.rescan();
    const definition = registry.getAgent("solo")?.definition;
    expect(definition).toMatchObject({
      id: "solo",
      name: "Sol",
      title: "Sol Title",
      icon: "🧩",
      description: "a standalone bundle",
      bundleName: "solo",
      source: "bundle",
      bundlePath: "bmad/custom/bundles/solo-folder",
      filePath: "bmad/custom/bundles/solo-folder/agent.md",
      criticalActions: ["Load into memory {bundle-root}/config.yaml and set variables"],
      format: "v6-early",
    });
    expect(JSON.stringify(definition)).not.toContain(tree.root);
  });

  it("skips invalid bundles with their reason and keeps serving the valid ones", async () => {
    await tree.write({
      ...standaloneBundle("good", { id: "good", name: "Gus" }),
      "bmad/custom/bundles/no-manifest/agents/x.md": agentFile({ id: "x", name: "X" }),
      "bmad/custom/bundles/bad-yaml/bundle.yaml": "type: [bundle\n",
      "bmad/custom/bundles/bad-schema/bundle.yaml": "type: bundle\nname: bad-schema\nversion: 1\nagents: [{ id: a, file: a.md }]\n",
      "bmad/custom/bundles/missing-agent/bundle.yaml": "type: standalone\nname: missing-agent\nversion: 1\nagent: { id: ghost, name: G, title: G, file: ghost.md }\n",
      "bmad/custom/bundles/not-an-agent/bundle.yaml": "type: standalone\nname: not-an-agent\nversion: 1\nagent: { id: readme, name: R, title: R, file: README.md }\n",
      "bmad/custom/bundles/not-an-agent/README.md": "# nothing here\n",
    });
    await registry.rescan();
    expect(registry.listAgents().map((agent) => agent.id)).toEqual(["good"]);
    const statuses = Object.fromEntries(registry.listBundles().bundles.map((entry) => [entry.name, entry.status]));
    expect(statuses).toEqual({ "bad-schema": "invalid", "bad-yaml": "invalid", good: "ok", "missing-agent": "invalid", "no-manifest": "invalid", "not-an-agent": "invalid" });
    expect(warningsOf("no-manifest")).toEqual(["BUNDLE_INVALID bmad/custom/bundles/no-manifest/bundle.yaml is missing"]);
    expect(warningsOf("bad-yaml")[0]).toMatch(/^BUNDLE_INVALID .*bundle.yaml is not valid YAML/);
    expect(warningsOf("bad-schema")[0]).toMatch(/no agent has entry_point: true/);
    expect(warningsOf("missing-agent")).toEqual(["AGENT_INVALID bmad/custom/bundles/missing-agent/ghost.md is missing"]);
    expect(warningsOf("not-an-agent")).toEqual(["AGENT_INVALID bmad/custom/bundles/not-an-agent/README.md: no <agent> element and no YAML agent block"]);
  });

  it("rejects a symlinked bundle folder and an agent file that escapes its bundle (docs/security.md case 85)", async () => {
    await tree.write({ ...standaloneBundle("real", { id: "real", name: "Rea" }), "outside/agent.md": agentFile({ id: "evil", name: "Evil" }) });
    await mkdir(join(tree.root, "elsewhere"), { recursive: true });
    await tree.write(standaloneBundle("target", { id: "linked", name: "Lin" }));
    execFileSync("mv", [join(tree.root, "bmad/custom/bundles/target"), join(tree.root, "elsewhere/target")]);
    await symlink(join(tree.root, "elsewhere/target"), join(tree.root, "bmad/custom/bundles/linked"));
    await tree.write({
      "bmad/custom/bundles/escape/bundle.yaml": "type: standalone\nname: escape\nversion: 1\nagent: { id: esc, name: E, title: E, file: ../../../../outside/agent.md }\n",
      "bmad/custom/bundles/sneaky/bundle.yaml": "type: standalone\nname: sneaky\nversion: 1\nagent: { id: sneaky, name: S, title: S, file: agent.md }\n",
    });
    await symlink(join(tree.root, "outside/agent.md"), join(tree.root, "bmad/custom/bundles/sneaky/agent.md"));
    await registry.rescan();
    expect(registry.listAgents().map((agent) => agent.id)).toEqual(["real"]);
    expect(warningsOf("linked")).toEqual(["PATH_REJECTED bmad/custom/bundles/linked is a symbolic link; a bundle must be a real folder"]);
    expect(warningsOf("escape")[0]).toMatch(/^PATH_REJECTED .*leaves its folder/);
    expect(warningsOf("sneaky")).toEqual(["PATH_REJECTED bmad/custom/bundles/sneaky/agent.md is a symbolic link that leaves its folder"]);
  });

  it("discovers installed modules: agents/*.md with config.yaml, skipping custom, _cfg, README.md and non-modules", async () => {
    await tree.write({
      "bmad/bmm/config.yaml": "user_name: Ada\n",
      "bmad/bmm/agents/pm.md": agentFile({ id: "bmad/bmm/agents/pm.md", name: "John" }),
      "bmad/bmm/agents/README.md": "# agents\n",
      "bmad/bmm/agents/notes.txt": "not an agent",
      "bmad/core/config.yaml": "user_name: Ada\n",
      "bmad/_cfg/agents/x.md": agentFile({ id: "cfg", name: "Cfg" }),
      "bmad/docs/guide.md": "# docs\n",
      "bmad/noconfig/agents/lost.md": agentFile({ id: "lost", name: "Lost" }),
    });
    await registry.rescan();
    expect(registry.listAgents()).toEqual([
      { id: "bmm/pm", name: "John", title: "John Title", icon: "🧩", description: "John Title", bundleName: "bmm", source: "module", format: "v6-early" },
    ]);
    expect(registry.getAgent("bmm/pm")?.definition).toMatchObject({ bundlePath: "bmad/bmm", filePath: "bmad/bmm/agents/pm.md" });
    expect(registry.listBundles().bundles.map((entry) => [entry.name, entry.status])).toEqual([
      ["bmm", "ok"],
      ["core", "ok"],
      ["noconfig", "invalid"],
    ]);
    expect(warningsOf("noconfig")).toEqual(["BUNDLE_INVALID bmad/noconfig/config.yaml is missing"]);
  });

  it("fills what an agent file leaves out: icon 🤖, empty persona, name from the id", async () => {
    await tree.write({
      "bmad/tiny/config.yaml": "a: 1\n",
      "bmad/tiny/agents/min.md": '<agent name="Min"/>',
      "bmad/custom/bundles/bare/bundle.yaml": "type: standalone\nname: bare\nversion: 1\nagent: { id: bare, file: bare.md }\n",
      "bmad/custom/bundles/bare/bare.md": '<agent id="file-id"></agent>',
    });
    await registry.rescan();
    expect(registry.getAgent("tiny/min")?.definition).toMatchObject({
      name: "Min",
      title: "",
      icon: "🤖",
      description: "",
      persona: { role: "", identity: "", communication_style: "", principles: "" },
      criticalActions: [],
      menu: [],
    });
    expect(registry.getAgent("bare")?.definition).toMatchObject({ id: "bare", name: "bare", title: "", icon: "🤖" });
  });

  it("resolves duplicate ids and names deterministically: bundles before modules, then folder order (docs/security.md case 87)", async () => {
    await tree.write({
      ...multiAgentBundle("b-second", [{ id: "shared", name: "From B" }, { id: "only-b", name: "Only B" }]),
      ...multiAgentBundle("a-first", [{ id: "shared", name: "From A" }]),
      ...standaloneBundle("c-same-name", { id: "other", name: "Other" }, "a-first"),
      ...standaloneBundle("d-module-name", { id: "bundle-pm", name: "Bundle PM" }, "bmm"),
      "bmad/bmm/config.yaml": "a: 1\n",
      "bmad/bmm/agents/pm.md": agentFile({ id: "pm", name: "Module PM" }),
    });
    for (let round = 0; round < 2; round++) {
      await registry.rescan();
      expect(registry.listAgents().map((agent) => `${agent.id}=${agent.name}`)).toEqual(["shared=From A", "only-b=Only B", "bundle-pm=Bundle PM"]);
    }
    expect(warningsOf("b-second")).toEqual([
      'BUNDLE_CONFLICT agent id "shared" is already served from bmad/custom/bundles/a-first/agents/shared.md; bmad/custom/bundles/b-second/agents/shared.md is left out',
    ]);
    const byPath = (path: string) => registry.listBundles().bundles.find((entry) => entry.path === path);
    expect(byPath("bmad/custom/bundles/c-same-name")?.warnings.map((warning) => warning.message)).toEqual([
      'the name "a-first" is already used by bmad/custom/bundles/a-first; bmad/custom/bundles/c-same-name is left out',
    ]);
    expect(byPath("bmad/bmm")).toMatchObject({ status: "invalid", agents: [], warnings: [{ code: "BUNDLE_CONFLICT" }] });
  });

  it("enforces the count caps and the file size cap (docs/security.md case 86)", async () => {
    const small = new AgentRegistry(tree.root, { maxFileBytes: 2048, maxSources: 2, maxAgentsPerSource: 1 });
    await tree.write({
      ...multiAgentBundle("a", [{ id: "a1", name: "A1" }, { id: "a2", name: "A2" }]),
      ...standaloneBundle("b", { id: "b", name: "B" }),
      ...standaloneBundle("c", { id: "c", name: "C" }),
      ...standaloneBundle("big", { id: "big", name: "Big" }),
    });
    await writeFile(join(tree.root, "bmad/custom/bundles/a/agents/a1.md"), agentFile({ id: "a1", name: "A1" }) + "x".repeat(4096));
    await small.rescan();
    const { bundles, warnings } = small.listBundles();
    expect(bundles.map((entry) => entry.path)).toEqual(["bmad/custom/bundles/a", "bmad/custom/bundles/b"]);
    expect(warnings.map((warning) => warning.code)).toEqual(["LIMIT_REACHED"]);
    expect(bundles[0]?.warnings.map((warning) => warning.code)).toEqual(["LIMIT_REACHED", "FILE_TOO_LARGE"]);
    expect(small.listAgents().map((agent) => agent.id)).toEqual(["b"]);
  });

  it("reports a BMAD_ROOT without any BMAD install instead of failing, naming every layout looked for", async () => {
    await registry.rescan();
    expect(registry.listAgents()).toEqual([]);
    expect(registry.listBundles().warnings[0]?.message).toMatch(/no BMAD install: looked for _bmad\/.*bmad\/.*\.bmad-core\/.*skills/);
  });

  it("reports what changed between scans, and nothing when nothing did", async () => {
    await tree.write(standaloneBundle("one", { id: "one", name: "One" }));
    expect(await registry.rescan()).toMatchObject({ revision: 1, added: ["one"], removed: [], updated: [], bundles: ["one"] });
    expect(await registry.rescan()).toBeUndefined();
    await tree.write({ ...standaloneBundle("two", { id: "two", name: "Two" }), "bmad/custom/bundles/one/agent.md": agentFile({ id: "one", name: "Uno" }) });
    expect(await registry.rescan()).toMatchObject({ revision: 2, added: ["two"], updated: ["one"], removed: [] });
    await tree.remove("bmad/custom/bundles/one");
    expect(await registry.rescan()).toMatchObject({ revision: 3, removed: ["one"], bundles: ["one"] });
  });

  it("keeps the last good agent after a bad edit and says so", async () => {
    await tree.write(standaloneBundle("edit", { id: "edit", name: "Ed" }));
    await registry.rescan();
    await tree.write({ "bmad/custom/bundles/edit/agent.md": "<agent title='no name'/>" });
    await registry.rescan();
    expect(registry.getAgent("edit")?.definition.name).toBe("Ed");
    expect(warningsOf("edit")).toEqual([
      "STALE_VERSION bmad/custom/bundles/edit/agent.md: the <agent> element has neither a name nor an id; its last good version is still served",
    ]);
  });

  it("gives an agent a start fingerprint that changes, and makes the agent updated, when a file the start reads is edited, made unreadable, created or removed", async () => {
    await tree.write({ ...standaloneBundle("solo", { id: "solo", name: "Sol" }), "bmad/custom/bundles/solo/config.yaml": "user_name: Ada\n" });
    await registry.rescan();
    const first = startFingerprintOf("solo");
    expect(first).toEqual(expect.any(String));
    expect(await registry.rescan()).toBeUndefined();

    await tree.write({ "bmad/custom/bundles/solo/config.yaml": "user_name: Grace\n" });
    expect(await registry.rescan()).toMatchObject({ updated: ["solo"] });
    const edited = startFingerprintOf("solo");
    expect(edited).not.toBe(first);

    await chmod(join(tree.root, "bmad/custom/bundles/solo/config.yaml"), 0o200);
    expect(await registry.rescan()).toMatchObject({ updated: ["solo"] });
    expect(startFingerprintOf("solo")).not.toBe(edited);

    await tree.remove("bmad/custom/bundles/solo/config.yaml");
    expect(await registry.rescan()).toMatchObject({ updated: ["solo"] });
    const missing = startFingerprintOf("solo");
    expect(missing).toEqual(expect.any(String));
    expect(missing).not.toBe(edited);

    await tree.write({ "bmad/custom/bundles/solo/config.yaml": "user_name: Ada\n" });
    expect(await registry.rescan()).toMatchObject({ updated: ["solo"] });
    expect(startFingerprintOf("solo")).not.toBe(missing);
  });

  it("gives no start fingerprint to a start that reads a file outside the BMAD trees, nor to a skill agent", async () => {
    const outside = agentFile({ id: "docs", name: "Dot" }).replace("{bundle-root}/config.yaml", "{project-root}/docs/x.md");
    await tree.write({
      ...standaloneBundle("docs", { id: "docs", name: "Dot" }),
      "bmad/custom/bundles/docs/agent.md": outside,
      "docs/x.md": "# notes\n",
      ".agents/skills/bmad-agent-keeper/SKILL.md": customizedSkill("bmad-agent-keeper", "Kit", "Lighthouse Keeper"),
      ".agents/skills/bmad-agent-keeper/customize.toml": agentCustomization("Kit", "Lighthouse Keeper", "💡"),
    });
    await registry.rescan();
    expect(registry.getAgent("docs")?.definition.criticalActions).toEqual(["Load into memory {project-root}/docs/x.md and set variables"]);
    expect(startFingerprintOf("docs")).toBeUndefined();
    expect(registry.getAgent("bmm/keeper")?.definition.format).toBe("skill");
    expect(startFingerprintOf("bmm/keeper")).toBeUndefined();
  });

  it("shares one scan between callers that ask while a scan runs", async () => {
    await tree.write(standaloneBundle("one", { id: "one", name: "One" }));
    const first = registry.rescan();
    expect(registry.rescan()).toBe(first); // not started yet: the same scan
    await Promise.resolve();
    await Promise.resolve();
    const [second, third] = [registry.rescan(), registry.rescan()]; // asked while the first runs
    expect(second).not.toBe(first);
    expect(third).toBe(second);
    expect(await first).toMatchObject({ added: ["one"] });
    expect(await second).toBeUndefined();
  });
});
