import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { Subscription } from "nats";
import { watchRegistryChanges, type Logger } from "@agent-orchestrator/shared/runtime";
import { ListAgentsReply, subjects, type AgentSummary, type ModelRouteView } from "@agent-orchestrator/shared/wire";
import { callService } from "../nats-call.js";
import type { GatewayContext } from "../gateway-context.js";
import { modelRoutes, withModels } from "./agent-models.js";

/** A safety net for a `registry.changed` missed while the connection was down: a kept list is fetched again after this long. */
export const agentListMaxAgeMs = 5_000;

/** The list, and the `GET /api/agents` answer made of it once: its JSON body and an ETag for conditional requests. */
export interface KeptAgentList {
  agents: AgentSummary[];
  /** the orchestrator's model routes outside any project, undefined when it did not answer (docs/models.md "The agent list") */
  routes: ModelRouteView[] | undefined;
  body: Buffer;
  etag: string;
}

/**
 * Every agent the registry lists (`registry.agents.list` with no bundle filter), as `GET /api/agents`,
 * `/v1/models` and the MCP tools show them. The decoded, validated list is kept and shared, with the
 * HTTP body made of it: it is dropped when a registry replica announces a change (`registry.changed`,
 * published once its re-scan is served) and fetched again on the next call, and in any case after
 * `agentListMaxAgeMs`. Callers asking at once share one request; a failed request is not kept.
 *
 * Kept in lru-cache's `fetch`: the age is counted from the answer and a list is fetched again once it is older than
 * `agentListMaxAgeMs` (an age equal to it is still fresh); `clear()` on a change aborts a request under way, and
 * `ignoreFetchAbort` lets its callers still get its answer without keeping it, so the next call asks again.
 * The body shows each agent's model, from the orchestrator's route table fetched with it; without an answer from
 * an orchestrator, the agents are listed without it.
 */
export class AgentList {
  private readonly kept: LRUCache<"", KeptAgentList>;
  private readonly changes: Subscription;

  constructor(
    private readonly context: Pick<GatewayContext, "connection" | "config" | "subjectPrefix">,
    logger: Logger,
    now: () => number = Date.now,
  ) {
    this.kept = new LRUCache<"", KeptAgentList>({
      max: 1,
      ttl: agentListMaxAgeMs,
      // the age is read from `now` on every look-up, not from a value lru-cache keeps for a millisecond
      ttlResolution: 0,
      perf: { now },
      ignoreFetchAbort: true,
      fetchMethod: async () => {
        const [{ agents }, routes] = await Promise.all([
          callService(this.context, subjects.registryAgentsList, {}, ListAgentsReply),
          modelRoutes(this.context, {}).catch((error: unknown) => {
            logger.warn({ err: error }, "the agent list is shown without models: the orchestrator did not give its model routes");
            return undefined;
          }),
        ]);
        return withBody(agents, routes);
      },
    });
    this.changes = watchRegistryChanges(context.connection, context.subjectPrefix, logger, () => this.kept.clear());
  }

  /** The agents, with the `GET /api/agents` body. */
  current(): Promise<KeptAgentList> {
    return this.kept.forceFetch("");
  }

  async list(): Promise<AgentSummary[]> {
    return (await this.current()).agents;
  }

  close(): void {
    this.changes.unsubscribe();
  }
}

function withBody(agents: AgentSummary[], routes: ModelRouteView[] | undefined): KeptAgentList {
  const body = Buffer.from(JSON.stringify({ success: true, agents: withModels(agents, routes) }));
  return { agents, routes, body, etag: `W/"${createHash("sha256").update(body).digest("base64url").slice(0, 32)}"` };
}
