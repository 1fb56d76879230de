import { readFileSync } from "node:fs";
import { z } from "zod";
import { parseBmadYaml } from "@agent-orchestrator/shared/bmad";
import { parseJson } from "@agent-orchestrator/shared/runtime";
import { ModelPrice, ModelRouteMatch, type ModelRouteView } from "@agent-orchestrator/shared/wire";
import { isModelConfigured, type OrchestratorConfig } from "../config.js";

/** One route of MODEL_ROUTES as written (docs/models.md "Routes"); unknown fields are refused, so a typo is not a silent default. */
export const ModelRouteEntry = z
  .object({
    /** how the route is shown (agent list, logs, the `done` event); `route-<n>` when absent */
    name: z.string().regex(/^[\w.:/-]{1,64}$/, "1-64 letters, digits or _ . : / -").optional(),
    /** which turns it serves; absent only on the compaction route, which serves none */
    match: ModelRouteMatch.optional(),
    /** `compaction`: the route that writes every chat's hand-off summaries (docs/models.md "Compaction"), never a turn */
    purpose: z.literal("compaction").optional(),
    base_url: z.url({ protocol: /^https?$/, error: "an http(s) URL, e.g. http://localhost:11434/v1" }).optional(),
    model: z.string().min(1),
    api_key_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "the name of an environment variable").optional(),
    temperature: z.number().min(0).max(2).optional(),
    max_output_tokens: z.number().int().min(1).max(10_000_000).optional(),
    reasoning_effort: z.enum(["none", "minimal", "low", "medium", "high", "xhigh"]).optional(),
    price: ModelPrice.optional(),
    /** tokens the model reads at most; MODEL_CONTEXT_WINDOW when absent */
    context_window: z.number().int().min(1_024).max(10_000_000).optional(),
    /** tokens of the window kept for the answer; `max_output_tokens`, else MODEL_OUTPUT_RESERVE, when absent */
    output_reserve: z.number().int().min(0).max(1_000_000).optional(),
  })
  .strict();
export type ModelRouteEntry = z.infer<typeof ModelRouteEntry>;

const ModelRoutesFile = z.object({ routes: z.array(ModelRouteEntry).max(256) }).strict();

/** A route ready to be called: where, which model, with which key and settings, at which price. */
export interface ModelRouteSpec {
  name: string;
  /** absent on the default route, which serves every turn no route matched */
  match?: ModelRouteMatch;
  model: string;
  /** undefined: OpenAI's own API */
  baseUrl: string | undefined;
  apiKey: string | undefined;
  temperature?: number;
  maxOutputTokens?: number;
  reasoningEffort?: NonNullable<ModelRouteEntry["reasoning_effort"]>;
  price?: ModelPrice;
  /** tokens the model reads at most (docs/models.md "Context windows") */
  contextWindow: number;
  /** tokens of the window kept free for the answer: below `contextWindow` */
  outputReserve: number;
  /** set on the one route that writes hand-off summaries; it serves no turn */
  purpose?: "compaction";
}

export type ModelRoutesResult = { ok: true; routes: ModelRouteSpec[] } | { ok: false; error: string };

export const defaultRouteName = "default";

/**
 * The route table: MODEL_ROUTES in order, then the default route (OPENAI_BASE_URL, OPENAI_API_KEY, LLM_MODEL,
 * MODEL_PRICE) when it is configured. A route without `base_url` calls the default's server with the default's
 * key; a route with its own `base_url` gets only the key its `api_key_env` names, so OPENAI_API_KEY never goes
 * to another server (docs/security.md case 207). Any problem is one line naming the route and the field.
 */
export function modelRoutesOf(
  config: OrchestratorConfig,
  env: NodeJS.ProcessEnv = process.env,
  readFile: (path: string) => string = (path) => readFileSync(path, "utf8"),
): ModelRoutesResult {
  const fallback: ModelRouteSpec | undefined = isModelConfigured(config)
    ? {
        name: defaultRouteName,
        model: config.LLM_MODEL,
        baseUrl: config.OPENAI_BASE_URL,
        apiKey: config.OPENAI_API_KEY,
        ...(config.MODEL_PRICE ? { price: config.MODEL_PRICE } : {}),
        contextWindow: config.MODEL_CONTEXT_WINDOW,
        outputReserve: config.MODEL_OUTPUT_RESERVE,
      }
    : undefined;
  if (config.MODEL_OUTPUT_RESERVE >= config.MODEL_CONTEXT_WINDOW) {
    return { ok: false, error: `Invalid configuration: MODEL_OUTPUT_RESERVE (${config.MODEL_OUTPUT_RESERVE}) must be below MODEL_CONTEXT_WINDOW (${config.MODEL_CONTEXT_WINDOW})` };
  }
  if (config.MODEL_ROUTES === undefined) return { ok: true, routes: fallback ? [fallback] : [] };
  const read = readRoutes(config.MODEL_ROUTES, readFile);
  if (!read.ok) return invalid(read.error);
  const checked = ModelRoutesFile.safeParse(read.value);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const [top, index, ...field] = issue?.path ?? [];
    if (top === "routes" && typeof index === "number") return invalid(`${routeLabel(read.value, index)}: ${field.join(".") || "(route)"}: ${issue?.message}`);
    return invalid(`${issue?.path.join(".") || "(file)"}: ${issue?.message ?? "invalid"}`);
  }
  const routes: ModelRouteSpec[] = [];
  for (const [index, entry] of checked.data.routes.entries()) {
    const name = entry.name ?? `route-${index + 1}`;
    const label = `route ${index + 1} (${name})`;
    if (name === defaultRouteName || routes.some((route) => route.name === name)) return invalid(`${label}: name: already used`);
    if (entry.purpose === "compaction") {
      if (entry.match !== undefined) return invalid(`${label}: match: the compaction route serves no turn; leave match out`);
      if (routes.some((route) => route.purpose === "compaction")) return invalid(`${label}: purpose: only one route may be the compaction route`);
    } else if (entry.match === undefined) return invalid(`${label}: match: required (name at least one of agent, module, project)`);
    const contextWindow = entry.context_window ?? config.MODEL_CONTEXT_WINDOW;
    const outputReserve = entry.output_reserve ?? entry.max_output_tokens ?? config.MODEL_OUTPUT_RESERVE;
    if (outputReserve >= contextWindow) return invalid(`${label}: output_reserve: ${outputReserve} must be below context_window (${contextWindow})`);
    let apiKey: string | undefined;
    if (entry.api_key_env !== undefined) {
      apiKey = env[entry.api_key_env]?.trim() || undefined;
      if (apiKey === undefined) return invalid(`${label}: api_key_env: ${entry.api_key_env} is not set`);
    } else if (entry.base_url === undefined) {
      apiKey = config.OPENAI_API_KEY;
    }
    const baseUrl = entry.base_url ?? config.OPENAI_BASE_URL;
    if (baseUrl === undefined && apiKey === undefined) return invalid(`${label}: api_key_env: OpenAI's API needs a key (set OPENAI_API_KEY or api_key_env)`);
    routes.push({
      name,
      ...(entry.match ? { match: entry.match } : {}),
      ...(entry.purpose ? { purpose: entry.purpose } : {}),
      model: entry.model,
      baseUrl,
      apiKey,
      ...(entry.temperature !== undefined ? { temperature: entry.temperature } : {}),
      ...(entry.max_output_tokens !== undefined ? { maxOutputTokens: entry.max_output_tokens } : {}),
      ...(entry.reasoning_effort !== undefined ? { reasoningEffort: entry.reasoning_effort } : {}),
      ...(entry.price ? { price: entry.price } : {}),
      contextWindow,
      outputReserve,
    });
  }
  return { ok: true, routes: fallback ? [...routes, fallback] : routes };
}

/**
 * The variables MODEL_ROUTES names in `api_key_env`: the keys `npm start` must pass to the orchestrator besides
 * OPENAI_API_KEY, and the only other secrets it passes (scripts/lib/service-env.ts). A setting that cannot be read
 * names none; the orchestrator then stops at start with the reason.
 */
export function routeKeyVariables(setting: string | undefined, readFile: (path: string) => string = (path) => readFileSync(path, "utf8")): string[] {
  const trimmed = setting?.trim();
  if (!trimmed) return [];
  const read = readRoutes(trimmed, readFile);
  const checked = read.ok ? ModelRoutesFile.safeParse(read.value) : undefined;
  return checked?.success ? [...new Set(checked.data.routes.flatMap((route) => (route.api_key_env === undefined ? [] : [route.api_key_env])))] : [];
}

/** The table as others may see it: names, models and matches, never a URL or a key. */
export const routeView = (route: ModelRouteSpec): ModelRouteView => ({
  name: route.name,
  model: route.model,
  ...(route.match ? { match: route.match } : {}),
  context_window: route.contextWindow,
});

/** MODEL_ROUTES is the JSON itself when it starts with `{`, else a path to a YAML or JSON file (YAML reads JSON too). */
function readRoutes(setting: string, readFile: (path: string) => string): { ok: true; value: unknown } | { ok: false; error: string } {
  if (setting.startsWith("{")) {
    const parsed = parseJson(setting);
    return parsed.ok ? parsed : { ok: false, error: `not valid JSON: ${parsed.error}` };
  }
  let text: string;
  try {
    text = readFile(setting);
  } catch (error) {
    return { ok: false, error: `cannot read ${setting}: ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
  }
  const parsed = parseBmadYaml(text);
  return parsed.ok ? parsed : { ok: false, error: `${setting} is not valid YAML or JSON: ${parsed.error}` };
}

function routeLabel(file: unknown, index: number): string {
  const routes = (file as { routes?: unknown[] }).routes;
  const name = (routes?.[index] as { name?: unknown } | undefined)?.name;
  return `route ${index + 1}${typeof name === "string" ? ` (${name})` : ""}`;
}

const invalid = (reason: string): ModelRoutesResult => ({ ok: false, error: `Invalid configuration: MODEL_ROUTES: ${reason}` });
