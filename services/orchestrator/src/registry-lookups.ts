import type { NatsConnection, Subscription } from "nats";
import type { z } from "zod";
import {
  AppError,
  ActivationReply,
  ExpiringCache,
  GetAgentReply,
  requestJson,
  subjects,
  type AgentDefinition,
  watchRegistryChanges,
  type Logger,
} from "@agent-orchestrator/shared";
import type { AgentRules } from "./system-prompt.js";

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
 */
export class RegistryLookups {
  readonly #agents: ExpiringCache<AgentDefinition>;
  readonly #rules: ExpiringCache<AgentRules>;

  constructor(private readonly options: RegistryLookupsOptions) {
    this.#agents = new ExpiringCache(options.maxAgeMs);
    this.#rules = new ExpiringCache(options.maxAgeMs);
  }

  /** The agent's definition; AGENT_NOT_FOUND (or the registry's other error) when it has none. */
  agent(agentId: string): Promise<AgentDefinition> {
    return this.#agents.get(agentId, async () => {
      const reply = await this.#request(subjects.registryAgentsGet, agentId, GetAgentReply);
      if (!reply.success) throw new AppError(reply.error.code, reply.error.message);
      return reply.agent;
    });
  }

  /** The agent file's menu handlers and rules, from its activation document (docs/design.md "Activation documents"). */
  rules(agentId: string): Promise<AgentRules> {
    return this.#rules.get(agentId, async () => {
      const reply = await this.#request(subjects.registryAgentsActivation, agentId, ActivationReply);
      if (!reply.success) throw new AppError(reply.error.code, reply.error.message);
      return { handlers: reply.data.activation.handlers, rules: reply.data.activation.rules };
    });
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
