import { describe, expect, it } from "vitest";
import { parseBundleManifest } from "./bundle-manifest.js";

const multi = `type: bundle
name: studio
version: 1.0
description: A studio
created: 2025-10-05
agents:
  - id: lead
    name: Lena
    title: Lead
    file: agents/./lead.md
    entry_point: true
  - id: helper
    name: Hal
    title: Helper
    file: agents/helper.md
resources:
  workflows: workflows
core_dependencies:
  - core/tasks/workflow.md
`;

describe("parseBundleManifest", () => {
  it("reads a multi-agent bundle, normalising files and defaulting entry_point to false", () => {
    const result = parseBundleManifest(multi);
    if (!result.ok) throw new Error(result.reason);
    const { manifest } = result.value;
    expect(manifest).toMatchObject({ type: "bundle", name: "studio", version: "1", created: "2025-10-05" });
    if (manifest.type !== "bundle") throw new Error("type");
    expect(manifest.agents.map((agent) => [agent.id, agent.file, agent.entry_point])).toEqual([
      ["lead", "agents/lead.md", true],
      ["helper", "agents/helper.md", false],
    ]);
  });

  it("reads a standalone bundle", () => {
    const result = parseBundleManifest("type: standalone\nname: solo\nversion: '2.0.0'\nagent: { id: solo, name: Sol, title: Solo, file: solo.md }\n");
    expect(result.ok && result.value.manifest.type === "standalone" && result.value.manifest.agent.id).toBe("solo");
  });

  it.each([
    ["missing type", "name: x\nversion: 1\nagents: []\n", /type/],
    ["unknown type", "type: team\nname: x\nversion: 1\n", /type/],
    ["missing version", "type: standalone\nname: x\nagent: { id: a, file: a.md }\n", /version/],
    ["no agents", "type: bundle\nname: x\nversion: 1\nagents: []\n", /agents/],
    ["no entry point", "type: bundle\nname: x\nversion: 1\nagents: [{ id: a, file: a.md }]\n", /no agent has entry_point: true/],
    ["standalone without agent", "type: standalone\nname: x\nversion: 1\n", /agent/],
    ["an id that is not a token", "type: standalone\nname: x\nversion: 1\nagent: { id: 'a.b c', file: a.md }\n", /agent\.id/],
    ["not a mapping", "- just\n- a list\n", /not a YAML mapping/],
    ["not YAML", "type: [bundle\n", /not valid YAML/],
  ])("rejects a manifest with %s, saying why", (_case, text, reason) => {
    const result = parseBundleManifest(text);
    expect(result.ok).toBe(false);
    expect((result as { reason: string }).reason).toMatch(reason);
  });

  it.each([
    ["an agent file", "agent: { id: a, file: ../../../etc/passwd }\n"],
    ["a resource", "agent: { id: a, file: a.md }\nresources: { config: /etc/passwd }\n"],
    ["a core dependency", "agent: { id: a, file: a.md }\ncore_dependencies: ['../../outside.md']\n"],
  ])("rejects the whole bundle when %s leaves its folder (docs/security.md case 85)", (_case, rest) => {
    const result = parseBundleManifest(`type: standalone\nname: x\nversion: 1\n${rest}`);
    expect(result).toMatchObject({ ok: false, code: "PATH_REJECTED" });
  });

  it("drops unknown keys and notes them", () => {
    const result = parseBundleManifest(`${multi}license: MIT\n__proto__: { polluted: true }\n`);
    expect(result.ok && result.value.notes).toEqual(['bundle.yaml: unknown key "license" ignored']);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });
});
