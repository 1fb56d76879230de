import { LRUCache } from "lru-cache";
import type { AgentDefinition, ToolContext } from "@agent-orchestrator/shared/wire";
import type { ToolCaller } from "../loop/tool-caller.js";
import { startAgent, type AgentStart } from "./agent-start.js";
import { withStartSettings } from "./start-settings.js";

interface Kept {
  fingerprint: string;
  start: AgentStart;
}

/** Agents whose start is kept; the least recently used is forgotten first, so a catalog of any size stays bounded. */
const maxKeptStarts = 1000;

/**
 * The result of each agent's start, kept so a turn does not wait on the tool-runner for files that have not
 * changed (docs/operations.md "What an orchestrator keeps"). It is valid for the agent's `startFingerprint`, which the registry changes
 * whenever a file the start reads changes, and for at most `maxAgeMs`, the safety net of the registry look-ups.
 * An agent without a fingerprint (a skill agent, or a start reading files the registry does not watch) starts
 * every turn, and so does the first turn of each fingerprint, so a file the sandbox denies fails the start.
 * A failed start is never kept. Starts are not shared while under way: each runs with its own turn's signal.
 */
export class StartCache {
  readonly #kept: LRUCache<string, Kept>;

  constructor(maxAgeMs: number, now: () => number = () => performance.now()) {
    // ttlResolution 0: the age is read from `now` on every look-up, not from a value lru-cache keeps for a millisecond
    this.#kept = new LRUCache<string, Kept>({ max: maxKeptStarts, ttl: maxAgeMs, ttlResolution: 0, perf: { now } });
  }

  /**
   * The agent's start (agent-start.ts) for a turn or a greeting, its calls marked as the system's (`agent_start`) and
   * named `<callPrefix>:<path>`; kept while the files it read are unchanged, the chat's settings merged over it
   * (start-settings.ts).
   */
  async start(tools: ToolCaller, agent: AgentDefinition, context: ToolContext, callPrefix: string, signal: AbortSignal): Promise<AgentStart> {
    const startContext: ToolContext = { ...context, agent_start: true };
    const started = await this.get(agent, () =>
      startAgent(agent, {
        readFile: (path) => tools.call("read_file", `${callPrefix}:${path}`, startContext, { file_path: path }, signal),
        loadSkill: (name) => tools.call("load_skill", `${callPrefix}:skill`, startContext, { name }, signal),
      }),
    );
    return withStartSettings(started, context.settings);
  }

  async get(agent: AgentDefinition, start: () => Promise<AgentStart>): Promise<AgentStart> {
    const fingerprint = agent.format === "skill" ? undefined : agent.startFingerprint;
    if (fingerprint === undefined) return start();
    const kept = this.#kept.get(agent.id);
    if (kept?.fingerprint === fingerprint) return kept.start;
    const started = await start();
    this.#kept.set(agent.id, { fingerprint, start: started });
    return started;
  }
}
