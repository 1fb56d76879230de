import OpenAI from "openai";
import { routeMatches, type AgentModel, type ModelPrice, type ModelRouteSubject, type ModelRouteView } from "@agent-orchestrator/shared/wire";
import type { OrchestratorConfig } from "../config.js";
import type { ModelCaller } from "../loop/model-caller.js";
import { cappedEventFetch } from "./capped-event-fetch.js";
import { cappedRetryAfterFetch } from "./capped-retry-after-fetch.js";
import { modelHttpFetch } from "./model-http-fetch.js";
import { routeView, type ModelRouteSpec } from "./model-routes.js";
import { openAiModel, type ModelParameters } from "./openai-model.js";
import { silenceLimitedFetch, type SilenceLimits } from "./silence-limited-fetch.js";

/** The model a turn is given: the caller, and which route and model it is (recorded on the turn and logged). */
export interface RoutedModel {
  caller: ModelCaller;
  /** `{name, route}`: the model's name and the route that chose it */
  model: AgentModel;
  price?: ModelPrice;
  /** the route's context window and the part of it kept for the answer (docs/models.md "Context windows") */
  window: { tokens: number; outputReserve: number };
}

interface Route {
  spec: ModelRouteSpec;
  routed: RoutedModel;
}

/**
 * Every model route with its own openai client, built once at start (docs/models.md "Routes"), and the choice of
 * one per turn: the first route whose match fits the turn's agent, module and project, else the default. All
 * routes share one HTTP stack (one connection pool per server) and the same limits: the openai client's retries,
 * `retry-after` capped, one streamed event capped, and the silence limits for each call.
 */
export class ModelRouter {
  private readonly routes: Route[];

  constructor(specs: readonly ModelRouteSpec[], config: OrchestratorConfig) {
    const limits: SilenceLimits = { firstByteMs: config.MODEL_FIRST_BYTE_TIMEOUT_MS, idleMs: config.MODEL_IDLE_TIMEOUT_MS };
    const http = modelHttpFetch(limits);
    // one streamed event may carry a whole answer, JSON-escaped (up to 6 bytes a character), and no more; the silence
    // limit counts the bytes as they come, below the event cap, which holds a line until it ends
    const transport = cappedRetryAfterFetch(config.MODEL_RETRY_AFTER_MAX_MS, cappedEventFetch(6 * config.MODEL_ANSWER_MAX_BYTES + 64 * 1024, silenceLimitedFetch(limits, http)));
    this.routes = specs.map((spec) => {
      const client = new OpenAI({
        apiKey: spec.apiKey ?? "not-needed",
        baseURL: spec.baseUrl ?? null,
        maxRetries: config.MODEL_MAX_RETRIES,
        // the client's own timeout ends at the response headers and is retried: kept past the first-byte limit, which ends the call first
        timeout: limits.firstByteMs + 5_000,
        fetch: transport,
      });
      const caller = openAiModel({ client, model: spec.model, parameters: parametersOf(spec), ...(spec.price ? { price: spec.price } : {}) });
      const window = { tokens: spec.contextWindow, outputReserve: spec.outputReserve };
      return { spec, routed: { caller, model: { name: spec.model, route: spec.name }, ...(spec.price ? { price: spec.price } : {}), window } };
    });
  }

  /** The model for a turn, or undefined when no route matches and no default is configured (MODEL_NOT_CONFIGURED). */
  pick(subject: ModelRouteSubject): RoutedModel | undefined {
    return this.routes.find(({ spec }) => spec.purpose === undefined && routeMatches(spec.match, subject))?.routed;
  }

  /** The route that writes hand-off summaries when one is configured (`purpose: compaction`); else each turn's own writes them. */
  compaction(): RoutedModel | undefined {
    return this.routes.find(({ spec }) => spec.purpose === "compaction")?.routed;
  }

  /** The table without URLs or keys, in order, the default last; a route matching a project only when `showProject` allows it. */
  view(showProject: (projectId: string) => boolean): ModelRouteView[] {
    return this.routes
      .filter(({ spec }) => spec.purpose === undefined && (spec.match?.project === undefined || showProject(spec.match.project)))
      .map(({ spec }) => routeView(spec));
  }
}

function parametersOf(spec: ModelRouteSpec): ModelParameters {
  return {
    ...(spec.temperature !== undefined ? { temperature: spec.temperature } : {}),
    ...(spec.maxOutputTokens !== undefined
      ? { maxOutputTokens: { field: spec.baseUrl === undefined ? "max_completion_tokens" : "max_tokens", tokens: spec.maxOutputTokens } }
      : {}),
    ...(spec.reasoningEffort !== undefined ? { reasoningEffort: spec.reasoningEffort } : {}),
  };
}
