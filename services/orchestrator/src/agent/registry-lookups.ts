import { LRUCache } from "lru-cache";
import type { NatsConnection, Subscription } from "nats";
import type { z } from "zod";
import { AppError, requestJson, watchRegistryChanges, type Logger } from "@agent-orchestrator/shared/runtime";
import { ActivationReply, GetAgentReply, subjects, type AgentDefinition } from "@agent-orchestrator/shared/wire";
import type { AgentRules } from "./agent-rules.js";

export interface RegistryLookupsOptions {
  connection: NatsConnection;
  subjectPrefix: string;
  timeoutMs: number;
  /** the longest an answer is kept: the safety net for a `registry.changed` this orchestrator missed */
  maxAgeMs: number;
}

/**
 * The registry's answers a turn needs (the agent, its activation rules), kept per agent id so a turn does not
 * wait on the registry (docs/operations.md "What an orchestrator keeps"). Every `registry.changed` forgets them all, and so does
 * their maximum age, since a plain NATS publish can be lost. A registry error is never kept.
 *
 * Kept in lru-cache's `fetch`: callers asking for one agent at once share one request; an answer is asked again
 * once it is older than `maxAgeMs` (counted from the answer; an age equal to it is still fresh); a clear aborts the
 * requests under way, and `ignoreFetchAbort` lets their callers still get the answer without keeping it.
 */
export class RegistryLookups {
  readonly #agents: LRUCache<string, AgentDefinition>;
  readonly #rules: LRUCache<string, AgentRules>;

  constructor(private readonly options: RegistryLookupsOptions) {
    this.#agents = keptAnswers<AgentDefinition>(options.maxAgeMs, async (agentId) => {
      const reply = await this.#request(subjects.registryAgentsGet, agentId, GetAgentReply);
      if (!reply.success) throw new AppError(reply.error.code, reply.error.message);
      return reply.agent;
    });
    this.#rules = keptAnswers<AgentRules>(options.maxAgeMs, async (agentId) => {
      const reply = await this.#request(subjects.registryAgentsActivation, agentId, ActivationReply);
      if (!reply.success) throw new AppError(reply.error.code, reply.error.message);
      return { handlers: reply.data.activation.handlers, rules: reply.data.activation.rules };
    });
  }

  /** The agent's definition; AGENT_NOT_FOUND (or the registry's other error) when it has none. */
  agent(agentId: string): Promise<AgentDefinition> {
    return this.#agents.forceFetch(agentId);
  }

  /** The agent file's menu handlers and rules, from its activation document (docs/design.md "Activation documents"). */
  rules(agentId: string): Promise<AgentRules> {
    return this.#rules.forceFetch(agentId);
  }

  /**
   * The agent and its file's rules, read at once for a user's turn. The rules only enrich the prompt: a registry that
   * cannot give them leaves them empty (logged) rather than stop the turn.
   */
  async agentWithRules(agentId: string, logger: Logger): Promise<{ agent: AgentDefinition; rules: AgentRules }> {
    const [agent, rules] = await Promise.all([
      this.agent(agentId),
      this.rules(agentId).then(
        (found) => ({ found }),
        (error: unknown) => ({ error }),
      ),
    ]);
    if ("found" in rules) return { agent, rules: rules.found };
    logger.warn({ err: rules.error }, "activation document unavailable; prompt built without the agent file's rules");
    return { agent, rules: { handlers: {}, rules: [] } };
  }

  #clear(): void {
    this.#agents.clear();
    this.#rules.clear();
  }

  /** Forgets every kept answer on each `registry.changed`; one subscription per orchestrator. */
  watch(logger: Logger): Subscription {
    return watchRegistryChanges(this.options.connection, this.options.subjectPrefix, logger, () => this.#clear());
  }

  #request<S extends z.ZodType>(subject: string, agentId: string, schema: S): Promise<z.infer<S>> {
    const { connection, subjectPrefix, timeoutMs } = this.options;
    return requestJson(connection, subjectPrefix + subject, { agent_id: agentId }, schema, { timeoutMs });
  }
}

/** Agents whose answers are kept; the least recently used is forgotten first, so a catalog of any size stays bounded. */
const maxKeptAgents = 1000;

function keptAnswers<V extends object>(maxAgeMs: number, load: (agentId: string) => Promise<V>): LRUCache<string, V> {
  return new LRUCache<string, V>({
    max: maxKeptAgents,
    ttl: maxAgeMs,
    // the age is read from the clock on every look-up, not from a value lru-cache keeps for a millisecond
    ttlResolution: 0,
    ignoreFetchAbort: true,
    fetchMethod: (agentId) => load(agentId),
  });
}
