import { describe, expect, it } from "vitest";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { type AgentDefinition } from "@agent-orchestrator/shared/wire";
import type { AgentStart } from "./agent-start.js";
import { StartCache } from "./start-cache.js";
import { testAgent } from "../testing/orchestrator-fixture.js";

describe("StartCache", () => {
  let clock = 1_000;
  const cache = () => new StartCache(1_000, () => clock);
  const counting = () => {
    let starts = 0;
    const start = (): Promise<AgentStart> => Promise.resolve({ kind: "actions", instructions: [`start ${++starts}`], files: [], variables: {} });
    return { start, starts: () => starts };
  };
  const kept = (fingerprint: string): AgentDefinition => ({ ...testAgent, startFingerprint: fingerprint });

  it("starts an agent once per fingerprint while younger than its maximum age, and again after", async () => {
    clock = 1_000;
    const starts = cache();
    const source = counting();
    expect(await starts.get(kept("f1"), source.start)).toMatchObject({ instructions: ["start 1"] });
    clock = 1_999;
    expect(await starts.get(kept("f1"), source.start)).toMatchObject({ instructions: ["start 1"] });
    expect(await starts.get(kept("f2"), source.start)).toMatchObject({ instructions: ["start 2"] });
    clock = 3_000;
    expect(await starts.get(kept("f2"), source.start)).toMatchObject({ instructions: ["start 3"] });
    expect(source.starts()).toBe(3);
  });

  it("starts every turn an agent without a fingerprint and a skill agent", async () => {
    clock = 1_000;
    const starts = cache();
    const source = counting();
    const skill: AgentDefinition = { ...kept("f1"), format: "skill" };
    for (const agent of [testAgent, testAgent, skill, skill]) await starts.get(agent, source.start);
    expect(source.starts()).toBe(4);
  });

  it("never keeps a failed start", async () => {
    clock = 1_000;
    const starts = cache();
    const source = counting();
    const denied = () => Promise.reject(new AppError("AGENT_INIT_FAILED", "denied"));
    await expect(starts.get(kept("f1"), denied)).rejects.toMatchObject({ code: "AGENT_INIT_FAILED" });
    expect(await starts.get(kept("f1"), source.start)).toMatchObject({ instructions: ["start 1"] });
  });

  it("keeps the starts of the 1,000 agents used last", async () => {
    clock = 1_000;
    const starts = cache();
    const source = counting();
    const agents = Array.from({ length: 1_001 }, (_unused, index): AgentDefinition => ({ ...kept("f"), id: `agent-${index}` }));
    for (const agent of agents) await starts.get(agent, source.start);
    await starts.get(agents[1_000] as AgentDefinition, source.start);
    expect(source.starts()).toBe(1_001);
    await starts.get(agents[0] as AgentDefinition, source.start);
    expect(source.starts()).toBe(1_002);
  });
});
