/**
 * BMAD 6.12's customization layers on a real install (a temp copy of the cached one): a team override
 * (`_bmad/custom/bmad-agent-analyst.toml`) and a personal one (`….user.toml`), written while the system runs,
 * change the analyst's icon, menu, principles, style and persistent facts (one from a file of the project),
 * for the agent list and for the model, with no restart and without the model running BMAD's resolver script.
 */
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

const teamOverride = `[agent]
icon = "🔎"
principles = ["Cite the customer interview behind every claim."]

[[agent.menu]]
code = "BP"
description = "Brainstorm with the team's house rules"
prompt = "Run a fifteen-minute brainstorm using the team's house rules."

[[agent.menu]]
code = "ZZ"
description = "Stress-test the idea as a press release"
skill = "bmad-prfaq"
`;

const userOverride = `[agent]
communication_style = "Short sentences, no jargon."
persistent_facts = ["Our product ships only in the EU.", "file:{project-root}/docs/team-*.md"]
`;

interface Agent {
  icon: string;
  menu: Array<{ trigger: string; description: string; skill?: string; prompt?: string }>;
}

let system: TestSystem;
let project: string;

beforeAll(async () => {
  const installed = await ensureBmadInstall({ version: "6.12.0", tool: "claude-code" });
  project = await mkdtemp(join(tmpdir(), "bmad-6.12-custom-"));
  await cp(installed, project, { recursive: true });
  system = await startTestSystem({
    responder: () => ({ text: "Hello" }),
    env: { BMAD_ROOT: project },
  });
}, 240_000);

afterAll(async () => {
  await system?.stop();
  if (project) await rm(project, { recursive: true, force: true });
});

async function analyst(): Promise<Agent> {
  const response = await fetch(`${system.url}/api/agents/bmm/analyst`);
  return ((await response.json()) as { agent: Agent }).agent;
}

describe("BMAD 6.12 customization layers", () => {
  it("serves the shipped analyst, then applies team and personal overrides to the agent list and to the model's prompt", async () => {
    const shipped = await analyst();
    expect(shipped.icon).toBe("📊");
    expect(shipped.menu.find((item) => item.trigger === "BP")?.skill).toBe("bmad-brainstorming");
    // `docs/` is the project's own (docs/projects.md): the team's facts file is uploaded to the user's default project
    const upload = await fetch(`${system.url}/api/projects/default/files/docs/team-facts.md`, { method: "PUT", body: "The team's fiscal year starts in April.\n" });
    expect(upload.status).toBe(201);
    await writeFile(join(project, "_bmad", "custom", "bmad-agent-analyst.toml"), teamOverride);
    await writeFile(join(project, "_bmad", "custom", "bmad-agent-analyst.user.toml"), userOverride);

    let agent = await analyst();
    for (let waited = 0; agent.icon !== "🔎" && waited < 15_000; waited += 100) {
      await sleep(100);
      agent = await analyst();
    }
    expect(agent.icon).toBe("🔎");
    expect(agent.menu).toHaveLength(shipped.menu.length + 1);
    expect(agent.menu.find((item) => item.trigger === "BP")).toMatchObject({
      description: "Brainstorm with the team's house rules",
      prompt: "Run a fifteen-minute brainstorm using the team's house rules.",
    });
    expect(agent.menu.at(-1)).toMatchObject({ trigger: "ZZ", skill: "bmad-prfaq" });

    const response = await fetch(`${system.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ agent_id: "bmm/analyst", message: "hello" }),
    });
    expect(await response.json()).toMatchObject({ success: true, response: "Hello" });
    const prompt = String(system.model.requests.at(-1)?.body.messages[0]?.content ?? "");
    expect(prompt).toContain("🔎");
    expect(prompt).toContain("Every finding grounded in verifiable evidence.");
    expect(prompt).toContain("Cite the customer interview behind every claim.");
    expect(prompt).toContain("Short sentences, no jargon.");
    expect(prompt).toContain("Our product ships only in the EU.");
    expect(prompt).toContain("The team's fiscal year starts in April.");
    expect(prompt).toContain("Run a fifteen-minute brainstorm using the team's house rules.");
    expect(prompt).not.toContain(project);
  });
});
