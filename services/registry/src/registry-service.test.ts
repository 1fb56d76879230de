import { randomUUID } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { connect, type NatsConnection } from "nats";
import { createLogger, decodeJson, requestJson } from "@agent-orchestrator/shared/runtime";
import {
  ActivationReply,
  GetAgentReply,
  ListAgentsReply,
  ListBundlesReply,
  RegistryChanged,
  SkillReply,
  subjects,
} from "@agent-orchestrator/shared/wire";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it, vi } from "vitest";
import { capturingLogger } from "@agent-orchestrator/shared/testing";
import { agentFile, createBmadTree, multiAgentBundle, standaloneBundle, type BmadTree } from "./testing/bmad-tree.js";
import { agentCustomization, customizedSkill } from "./testing/install-files.js";
import { registryEnvSchema } from "./config.js";
import { startRegistry, type RunningRegistry } from "./registry-service.js";

const logger = createLogger("registry-test", "silent");
let connection: NatsConnection;
beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
});
afterAll(() => connection.drain());

describe("registry service over NATS", () => {
  let tree: BmadTree;
  let registry: RunningRegistry;
  let prefix: string;

  beforeEach(async () => {
    tree = await createBmadTree();
    await tree.write({
      ...multiAgentBundle("studio", [{ id: "lead", name: "Lena" }, { id: "helper", name: "Hal", entry_point: false }]),
      ...standaloneBundle("solo", { id: "solo", name: "Sol" }),
      "bmad/bmm/config.yaml": "user_name: Ada\n",
      "bmad/bmm/agents/pm.md": agentFile({ id: "pm", name: "John" }),
    });
    prefix = `test-${randomUUID().slice(0, 8)}.`; // every test its own subjects on the shared server
    const config = registryEnvSchema.parse({ BMAD_ROOT: tree.root, REGISTRY_POLL_MS: "200", REGISTRY_DEBOUNCE_MS: "50" });
    registry = await startRegistry({ connection, config, logger, subjectPrefix: prefix });
  });
  afterEach(async () => {
    await registry.stop();
    await tree.cleanup();
  });

  const ask = <S extends Parameters<typeof requestJson>[3]>(subject: string, body: unknown, schema: S) =>
    requestJson(connection, prefix + subject, body, schema, { timeoutMs: 2000 });
  const listIds = async (bundle?: string) => {
    const reply = await ask(subjects.registryAgentsList, bundle === undefined ? {} : { bundle }, ListAgentsReply);
    if (!reply.success) throw new Error(reply.error.message);
    return reply.agents.map((agent) => agent.id);
  };
  /** Polls `check` until it passes (how soon is bench/'s to measure, not a bound a loaded machine could break). */
  const eventually = (check: () => Promise<void>, timeoutMs = 10_000): Promise<void> => vi.waitFor(check, { timeout: timeoutMs, interval: 25 });

  it("lists agents, optionally of one bundle", async () => {
    expect(await listIds()).toEqual(["solo", "lead", "bmm/pm"]); // bundle folders in byte order, then modules
    expect(await listIds("studio")).toEqual(["lead"]);
    expect(await listIds("bmm")).toEqual(["bmm/pm"]);
    expect(await listIds("nothing")).toEqual([]);
  });

  it("gets one agent with persona, menu and paths relative to BMAD_ROOT", async () => {
    const reply = await ask(subjects.registryAgentsGet, { agent_id: "lead" }, GetAgentReply);
    expect(reply).toMatchObject({
      success: true,
      agent: { id: "lead", name: "Lena", bundleName: "studio", source: "bundle", bundlePath: "bmad/custom/bundles/studio", filePath: "bmad/custom/bundles/studio/agents/lead.md" },
    });
    expect(reply.success && reply.agent.menu.map((item) => item.trigger)).toEqual(["*help", "*go"]);
  });

  it("answers AGENT_NOT_FOUND for an unknown or unlisted agent", async () => {
    for (const id of ["nobody", "helper", "__proto__"]) {
      expect(await ask(subjects.registryAgentsGet, { agent_id: id }, GetAgentReply)).toEqual({
        success: false,
        error: { code: "AGENT_NOT_FOUND", message: `No agent with id "${id}"` },
      });
    }
    expect(await ask(subjects.registryAgentsActivation, { agent_id: "nobody" }, ActivationReply)).toMatchObject({ success: false, error: { code: "AGENT_NOT_FOUND" } });
  });

  it("answers BAD_REQUEST with a message for invalid JSON or a wrong shape, and keeps serving", async () => {
    const raw = await connection.request(prefix + subjects.registryAgentsGet, new TextEncoder().encode("{not json"), { timeout: 2000 });
    expect(decodeJson(raw.data, GetAgentReply)).toMatchObject({ success: false, error: { code: "BAD_REQUEST", message: expect.stringMatching(/^Invalid JSON/) } });
    expect(await ask(subjects.registryAgentsGet, { id: "lead" }, GetAgentReply)).toEqual({
      success: false,
      error: { code: "BAD_REQUEST", message: "Invalid message: agent_id: Invalid input: expected string, received undefined" },
    });
    expect(await ask(subjects.registryAgentsList, { bundle: 42 }, ListAgentsReply)).toMatchObject({ success: false, error: { code: "BAD_REQUEST" } });
    expect(await listIds()).toHaveLength(3);
  });

  it("lists bundles and modules with status and warnings", async () => {
    await tree.write({ "bmad/custom/bundles/broken/bundle.yaml": "type: bundle\n" });
    await registry.rescan();
    const reply = await ask(subjects.registryBundlesList, {}, ListBundlesReply);
    if (!reply.success) throw new Error(reply.error.message);
    expect(reply.bundles.map((bundle) => [bundle.name, bundle.source, bundle.status, bundle.agents])).toEqual([
      ["broken", "bundle", "invalid", []],
      ["solo", "bundle", "ok", ["solo"]],
      ["studio", "bundle", "ok", ["lead"]],
      ["bmm", "module", "ok", ["bmm/pm"]],
    ]);
    expect(reply.bundles[0]?.warnings[0]).toMatchObject({ code: "BUNDLE_INVALID", path: "bmad/custom/bundles/broken/bundle.yaml" });
    expect(reply.warnings).toEqual([]);
  });

  it("builds the activation document with the request's context and variables", async () => {
    const reply = await ask(subjects.registryAgentsActivation, { agent_id: "bmm/pm", user_context: "write a PRD", variables: { "bundle-root": "{project-root}/bmad/bmm" } }, ActivationReply);
    if (!reply.success) throw new Error(reply.error.message);
    expect(reply.data).toMatchObject({ type: "agent", name: "pm", module: "bmm", userContext: "write a PRD" });
    expect(reply.data.activation.steps).toEqual(["Load into memory {project-root}/bmad/bmm/config.yaml and set variables"]);
    expect(reply.text).toContain("**Step 1:** Load into memory {project-root}/bmad/bmm/config.yaml");
    expect(reply.text).toContain("> write a PRD");
  });

  it("answers a skill's activation document, SKILL_NOT_FOUND for an unknown one, and refuses a name that is a path", async () => {
    await tree.write({ ".claude/skills/tidy-desk/SKILL.md": "---\nname: tidy-desk\ndescription: Tidies\n---\nRead {skill-root}/steps/one.md.\n" });
    const reply = await ask(subjects.registrySkillsGet, { name: "tidy-desk", user_context: "tidy up" }, SkillReply);
    expect(reply.success && reply.data).toMatchObject({ type: "skill", name: "tidy-desk", path: ".claude/skills/tidy-desk", userContext: "tidy up" });
    expect(reply.success && reply.text).toContain("Read .claude/skills/tidy-desk/steps/one.md.");
    expect(await ask(subjects.registrySkillsGet, { name: "no-such-skill" }, SkillReply)).toMatchObject({ success: false, error: { code: "SKILL_NOT_FOUND" } });
    for (const name of ["../tidy-desk", "a/b", ".claude"]) {
      expect(await ask(subjects.registrySkillsGet, { name }, SkillReply)).toMatchObject({ success: false, error: { code: "BAD_REQUEST" } });
    }
  });

  it("announces itself in $SRV discovery as the registry service with its endpoints", async () => {
    const infos = [];
    for await (const info of await connection.services.client().info("registry")) infos.push(info);
    const ours = infos.find((info) => info.endpoints.some((endpoint) => endpoint.subject.startsWith(prefix)));
    expect(ours?.endpoints.map((endpoint) => endpoint.subject).sort()).toEqual(
      [subjects.registryAgentsActivation, subjects.registryAgentsGet, subjects.registryAgentsList, subjects.registryBundlesList, subjects.registryHelpGet, subjects.registrySkillsGet].map((subject) => prefix + subject).sort(),
    );
  });

  it("sees a bundle added, replaced and deleted without a restart, and publishes each change", async () => {
    const events: RegistryChanged[] = [];
    const subscription = connection.subscribe(prefix + subjects.registryChanged, {
      callback: (_error, message) => events.push(decodeJson(message.data, RegistryChanged)),
    });
    try {
      await tree.write(standaloneBundle("fresh", { id: "fresh", name: "Fay" }));
      await eventually(async () => expect(await listIds()).toContain("fresh"));

      await writeFile(join(tree.root, "bmad/custom/bundles/fresh/agent.md"), agentFile({ id: "fresh", name: "Faye", command: "*again" }));
      await eventually(async () => {
        const reply = await ask(subjects.registryAgentsGet, { agent_id: "fresh" }, GetAgentReply);
        expect(reply.success && reply.agent.menu[1]?.trigger).toBe("*again");
      });

      await tree.remove("bmad/custom/bundles/fresh");
      await eventually(async () => expect(await listIds()).not.toContain("fresh"));

      await eventually(async () => expect(events.some((event) => event.removed.includes("fresh"))).toBe(true));
      expect(events.some((event) => event.added.includes("fresh"))).toBe(true);
      expect(events.some((event) => event.updated.includes("fresh"))).toBe(true);
      const revisions = events.map((event) => event.revision);
      expect(revisions).toEqual([...revisions].sort((left, right) => left - right));
    } finally {
      subscription.unsubscribe();
    }
  });

  it("publishes the agent as updated, with a new start fingerprint, when a config file its start reads is edited", async () => {
    const agentOf = async (id: string) => {
      const reply = await ask(subjects.registryAgentsGet, { agent_id: id }, GetAgentReply);
      if (!reply.success) throw new Error(reply.error.message);
      return reply.agent;
    };
    const before = await agentOf("bmm/pm");
    expect(before.criticalActions).toEqual(["Load into memory {bundle-root}/config.yaml and set variables"]);
    expect(before.startFingerprint).toEqual(expect.any(String));
    const events: RegistryChanged[] = [];
    const subscription = connection.subscribe(prefix + subjects.registryChanged, {
      callback: (_error, message) => events.push(decodeJson(message.data, RegistryChanged)),
    });
    try {
      await connection.flush();
      await writeFile(join(tree.root, "bmad/bmm/config.yaml"), "user_name: Grace Hopper\n");
      await eventually(async () => expect(events.some((event) => event.updated.includes("bmm/pm"))).toBe(true));
      const after = await agentOf("bmm/pm");
      expect(after.startFingerprint).toEqual(expect.any(String));
      expect(after.startFingerprint).not.toBe(before.startFingerprint);
    } finally {
      subscription.unsubscribe();
    }
  });

  it("sees a skills-era agent installed in a new tool folder, and a team override of it, and serves its activation", async () => {
    await tree.write({
      ".agents/skills/bmad-agent-keeper/SKILL.md": customizedSkill("bmad-agent-keeper", "Kit", "Lighthouse Keeper"),
      ".agents/skills/bmad-agent-keeper/customize.toml": agentCustomization("Kit", "Lighthouse Keeper", "💡"),
    });
    await eventually(async () => expect(await listIds()).toContain("bmm/keeper"));
    await tree.write({ "_bmad/custom/bmad-agent-keeper.toml": '[agent]\nicon = "🗼"\n' });
    await eventually(async () => {
      const reply = await ask(subjects.registryAgentsGet, { agent_id: "bmm/keeper" }, GetAgentReply);
      expect(reply.success && reply.agent.icon).toBe("🗼");
    });
    const activation = await ask(subjects.registryAgentsActivation, { agent_id: "bmm/keeper" }, ActivationReply);
    expect(activation.success && activation.data).toMatchObject({ format: "skill", skill: { name: "bmad-agent-keeper", path: ".agents/skills/bmad-agent-keeper" } });
    expect(activation.success && activation.text).toContain("🗼 **Agent Activated: Kit** (Lighthouse Keeper)");
  });

  it("keeps serving the last good version after a bad edit and reports it; a fix is picked up", async () => {
    const path = join(tree.root, "bmad/custom/bundles/solo/agent.md");
    await writeFile(path, "<agent title='lost its name'>");
    await eventually(async () => {
      const reply = await ask(subjects.registryBundlesList, {}, ListBundlesReply);
      const solo = reply.success ? reply.bundles.find((bundle) => bundle.name === "solo") : undefined;
      expect(solo?.warnings.map((warning) => warning.code)).toEqual(["STALE_VERSION"]);
    });
    expect(await ask(subjects.registryAgentsGet, { agent_id: "solo" }, GetAgentReply)).toMatchObject({ success: true, agent: { name: "Sol" } });

    await writeFile(join(tree.root, "bmad/custom/bundles/solo/bundle.yaml"), "type: [broken");
    // the re-scan has seen the broken file (it reports it), and still serves the agent
    await eventually(async () => {
      const reply = await ask(subjects.registryBundlesList, {}, ListBundlesReply);
      const solo = reply.success ? reply.bundles.find((bundle) => bundle.name === "solo") : undefined;
      expect(solo?.warnings).toContainEqual(expect.objectContaining({ code: "STALE_VERSION", path: "bmad/custom/bundles/solo/bundle.yaml" }));
    });
    expect(await listIds()).toContain("solo");

    await tree.write(standaloneBundle("solo", { id: "solo", name: "Solveig" }));
    await eventually(async () => expect(await ask(subjects.registryAgentsGet, { agent_id: "solo" }, GetAgentReply)).toMatchObject({ agent: { name: "Solveig" } }));
  });

  it("rescan() publishes what changed even with watching off", async () => {
    await registry.stop();
    const config = registryEnvSchema.parse({ BMAD_ROOT: tree.root, REGISTRY_WATCH: "false" });
    const captured = capturingLogger();
    registry = await startRegistry({ connection, config, logger: captured.logger, subjectPrefix: prefix });
    // no watcher at all (it says so when it starts), so only rescan() can see the new bundle
    expect(captured.lines).toContainEqual(expect.objectContaining({ msg: "registry serving", watch: "off" }));
    const changed = new Promise<RegistryChanged>((resolve) => {
      const subscription = connection.subscribe(prefix + subjects.registryChanged, {
        max: 1,
        callback: (_error, message) => resolve(decodeJson(message.data, RegistryChanged)),
      });
      void subscription;
    });
    await connection.flush();
    await tree.write(standaloneBundle("manual", { id: "manual", name: "Man" }));
    expect(await listIds()).not.toContain("manual");
    await registry.rescan();
    expect(await listIds()).toContain("manual");
    expect((await changed).added).toEqual(["manual"]);
  });

  it("stops answering after stop()", async () => {
    await registry.stop();
    await expect(ask(subjects.registryAgentsList, {}, ListAgentsReply)).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    registry = { stop: async () => {}, rescan: async () => {} }; // already stopped: nothing left for afterEach
  });
});

