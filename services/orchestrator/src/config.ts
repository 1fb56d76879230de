import { z } from "zod";
import { baseEnvSchema, envInt, firstIssue, parseJson, removedEnv, runLimitCeilingMs, scriptTimeoutDefaultMs, toolReplyWindowMs, toolTimeoutDefaultMs } from "@agent-orchestrator/shared/runtime";
import { ApprovalsSettings, builtInApprovals, effectiveApprovals, parseModelPrice, type ModelPrice } from "@agent-orchestrator/shared/wire";

const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value.trim()));

/** An amount of money, at least 0; empty or unset: none. */
const optionalAmount = optionalText
  .transform((value) => (value === undefined ? undefined : Number(value)))
  .pipe(z.number().nonnegative().max(1_000_000_000).optional());

/** APPROVALS_DEFAULTS: JSON in the shape of a project's `approvals`, its keys over the built-in ones. */
const approvalDefaults = optionalText.transform((text, context) => {
  if (text === undefined) return builtInApprovals;
  const json = parseJson(text);
  const parsed = json.ok ? ApprovalsSettings.safeParse(json.value) : undefined;
  if (parsed?.success) return effectiveApprovals(builtInApprovals, parsed.data);
  context.addIssue({ code: "custom", message: parsed ? `not an approvals document: ${firstIssue(parsed.error, "approvals")}` : "not JSON" });
  return z.NEVER;
});

export const orchestratorEnvSchema = baseEnvSchema.extend({
  OPENAI_API_KEY: optionalText.describe("key for the model API (OpenAI); a compatible server may need none"),
  OPENAI_BASE_URL: optionalText
    .pipe(z.url().optional())
    .describe("base URL of an OpenAI-compatible server (e.g. `http://localhost:11434/v1` for Ollama); unset: OpenAI's own"),
  LLM_MODEL: z.string().min(1).default("gpt-4o-mini").describe("model name sent to the API"),
  MODEL_MAX_RETRIES: envInt(2, 0, 10).describe(
    "attempts after the first, done by the openai client itself (the only retry layer; it honours `retry-after` up to MODEL_RETRY_AFTER_MAX_MS)",
  ),
  MODEL_ROUTES: optionalText.describe(
    "a model per agent, module or project: a path to a YAML or JSON file, or the JSON itself (`{\"routes\":[{\"match\":{\"agent\":\"bmm/analyst\"},\"model\":\"qwen3:8b\",\"base_url\":\"http://localhost:11434/v1\"}]}`); the first route that matches a turn answers it, the rest go to OPENAI_BASE_URL/LLM_MODEL (docs/models.md \"Routes\"). Checked at start",
  ),
  MODEL_PRICE: optionalText
    .refine((value) => value === undefined || parseModelPrice(value).ok, { message: "expected input,cached_input,output: prices per million tokens, e.g. 0.15,0.075,0.6" })
    .transform((value) => (value === undefined ? undefined : (parseModelPrice(value) as { ok: true; value: ModelPrice }).value))
    .describe(
      "the default route's price per million tokens, `input,cached_input,output` (`0.15,0.075,0.6`; cached_input may be left empty: the input price); unset: its calls carry no cost (docs/models.md \"Cost\")",
    ),
  MODEL_IDLE_TIMEOUT_MS: envInt(120_000, 1_000, 3_600_000).describe(
    "a model call whose answer goes silent (no byte) for this long once it has begun is stopped with MODEL_TIMEOUT; a long answer that keeps coming is never cut (docs/models.md \"Timeouts\")",
  ),
  MODEL_FIRST_BYTE_TIMEOUT_MS: envInt(600_000, 1_000, 3_600_000).describe(
    "how long a model call may wait for the first byte of its answer (a local model reads the whole prompt first: 40-95 s for a 6.12 agent's first prompt on a laptop CPU, more for a long chat) before it is stopped with MODEL_TIMEOUT; not retried",
  ),
  MODEL_TIMEOUT_MS: removedEnv(
    "removed: a model call is no longer limited by its total length but by silence; set MODEL_IDLE_TIMEOUT_MS and MODEL_FIRST_BYTE_TIMEOUT_MS instead (docs/models.md \"Timeouts\")",
    "removed (it limited a whole model call); set, the orchestrator refuses to start: use MODEL_IDLE_TIMEOUT_MS and MODEL_FIRST_BYTE_TIMEOUT_MS",
  ),
  MODEL_RETRY_AFTER_MAX_MS: envInt(20_000, 0, 600_000).describe(
    "the longest `retry-after` from the model server the client honours; a longer one is ignored: the client retries on its own short backoff and then fails with MODEL_RATE_LIMITED instead of waiting that long",
  ),
  MAX_ITERATIONS: envInt(50, 1, 500).describe("model calls per turn before the turn stops with MAX_ITERATIONS"),
  TURN_TIMEOUT_MS: envInt(1_800_000, 1_000, 14_400_000).describe(
    "wall-clock limit of one turn (TURN_TIMEOUT): long enough for a workflow step with a slow model. A stopping orchestrator lets its turns run this long (+ 5 s) before it exits",
  ),
  TOOL_TIMEOUT_MS: envInt(toolTimeoutDefaultMs, 100, 600_000).describe(
    "time limit of one tool call over NATS; for run_command and run_script, the time allowed besides the command's or the script's own (a checkout, keeping what it changed)",
  ),
  COMMAND_TIMEOUT_MAX_MS: envInt(scriptTimeoutDefaultMs, 1000, runLimitCeilingMs).describe(
    "the tool-runner's setting of the same name, read here too: the orchestrator waits for run_command its `timeout_ms` (absent: this), at most this, plus TOOL_TIMEOUT_MS (docs/commands.md \"How long the orchestrator waits\"). Give both services the same value; with TOOL_TIMEOUT_MS it must stay within the tool-runner's 11 min to answer, or the orchestrator refuses to start",
  ),
  SCRIPT_TIMEOUT_MS: envInt(scriptTimeoutDefaultMs, 1000, runLimitCeilingMs).describe(
    "the tool-runner's setting of the same name, read here too: the orchestrator waits for run_script this plus TOOL_TIMEOUT_MS. Give both services the same value; with TOOL_TIMEOUT_MS it must stay within the tool-runner's 11 min to answer, or the orchestrator refuses to start",
  ),
  REGISTRY_TIMEOUT_MS: envInt(5_000, 100, 60_000).describe(
    "time limit of one request to the registry (an agent's definition and activation)",
  ),
  REGISTRY_CACHE_MAX_AGE_MS: envInt(10_000, 0, 600_000).describe(
    "the longest an agent, its activation rules and its start are kept without a `registry.changed` (a plain publish, which can be lost); 0 keeps nothing (docs/operations.md \"What an orchestrator keeps\")",
  ),
  TOOL_CONCURRENCY: envInt(4, 1, 64).describe("tool calls of one model answer run at most this many at a time"),
  TOOL_RESULT_MAX_CHARS: envInt(65_536, 1_024, 4_000_000).describe(
    "a tool result longer than this (characters) is cut, head and tail kept, before the model sees it",
  ),
  MAX_TOOL_CALLS_PER_ANSWER: envInt(16, 1, 256).describe(
    "tool calls one model answer may make; the calls beyond get an error result instead of running",
  ),
  MODEL_CONTEXT_WINDOW: envInt(128_000, 1_024, 10_000_000).describe(
    "tokens the default route's model reads at most (its context window), and every route's that names none (`context_window` in MODEL_ROUTES). Past COMPACTION_THRESHOLD_PERCENT of it a chat is compacted, and no prompt is sent past it less the output reserve (docs/models.md \"Context windows\"). 128000 is the window of OpenAI's mini models; set 32768 for a 32k model, and Ollama's `num_ctx` for Ollama",
  ),
  MODEL_OUTPUT_RESERVE: envInt(8_192, 0, 1_000_000).describe(
    "tokens of the window kept free for the model's answer: a prompt is never longer than the window less this. A route's `output_reserve`, else its `max_output_tokens`, else this. Must be below the window",
  ),
  COMPACTION_THRESHOLD_PERCENT: envInt(80, 10, 95).describe(
    "a chat whose next prompt passes this share of its route's window is compacted before the call: old tool results first become stubs, then, if that is not enough, the older conversation a hand-off summary (docs/models.md \"Compaction\")",
  ),
  CONTEXT_BUDGET_TOKENS: removedEnv(
    "removed: a prompt is now kept within its route's context window; set MODEL_CONTEXT_WINDOW and MODEL_OUTPUT_RESERVE (or `context_window` per route in MODEL_ROUTES) instead (docs/models.md \"Context windows\")",
    "removed (one prompt budget for every model); set, the orchestrator refuses to start: use MODEL_CONTEXT_WINDOW and MODEL_OUTPUT_RESERVE",
  ),
  MODEL_ANSWER_MAX_BYTES: envInt(2 * 1024 * 1024, 16 * 1024, 64 * 1024 * 1024).describe(
    "bytes of one model answer (text plus tool-call ids, names and arguments): past it the stream is stopped, the answer kept up to it with a note, and the turn ends with MODEL_OUTPUT_TOO_LARGE. One streamed event larger than 6× this plus 64 KiB is refused before it is buffered. 2 MiB holds a save_output of a whole WRITE_MAX_BYTES (1 MiB) file as JSON-escaped arguments and keeps a text answer within one `done` event of the shipped 4 MiB max_payload",
  ),
  TURN_OUTPUT_MAX_BYTES: envInt(8 * 1024 * 1024, 16 * 1024, 256 * 1024 * 1024).describe(
    "bytes of all of one turn's model answers together (each subagent has its own); past it the turn ends as with MODEL_ANSWER_MAX_BYTES",
  ),
  MAX_INVALID_TOOL_CALLS: envInt(3, 1, 50).describe("invalid tool calls in a row that end the turn"),
  RUN_CONCURRENCY: envInt(32, 1, 1_000).describe("turns one orchestrator process runs at once (pulled from the work queue)"),
  USER_MAX_CONCURRENT_TURNS: envInt(4, 0, 1_000).describe(
    "turns one user may run at once across every orchestrator replica; a turn past it is refused unstarted with USER_TURN_LIMIT (429, `retry-after: 5`). Subagents are not counted (they belong to their parent's turn). 0 turns the cap off. Without AUTH_TOKENS every client is the one user `local`",
  ),
  RUN_ACK_WAIT_MS: envInt(30_000, 1_000, 600_000).describe(
    "a turn not acknowledged (nor kept alive) for this long, because its orchestrator died, is handed to another orchestrator",
  ),
  RUN_MAX_DELIVER: envInt(3, 1, 20).describe("deliveries of one turn before it is given up (a crash loop must end)"),
  EVENTS_MAX_AGE_MS: envInt(3_600_000, 60_000, 7 * 24 * 3_600_000).describe(
    "how long turn events stay in the RUN_EVENTS stream for re-attaching clients",
  ),
  EVENTS_MAX_BYTES: envInt(1024 ** 3, 1024 ** 2, 1024 ** 4).describe(
    "bytes RUN_EVENTS keeps; at the limit its oldest events are dropped (discard old), new ones are always stored",
  ),
  RUN_REQUESTS_MAX_BYTES: envInt(256 * 1024 ** 2, 1024 ** 2, 1024 ** 4).describe(
    "bytes of queued turns RUN_REQUESTS holds; at the limit a new turn is refused (discard new), queued ones are kept",
  ),
  SESSIONS_BUCKET_MAX_BYTES: envInt(2 * 1024 ** 3, 1024 ** 2, 1024 ** 4).describe(
    "bytes of the sessions bucket (KV_sessions); at the limit a save is refused with QUOTA_EXCEEDED and nothing stored is dropped (sessions do not expire: an operator raises the limit or removes old sessions). JetStream reserves each stream's limit on disk at creation, so the three limits must fit the server's store",
  ),
  JS_REPLICAS: envInt(1, 1, 5).describe(
    "copies of RUN_REQUESTS, RUN_EVENTS and the `sessions`, `turn_slots`, `projects` and `spending` buckets; 3 on a three-server cluster. At start, existing ones with fewer are raised (logged as `raised the stream's replicas`), never lowered; above 1 on a single server, the orchestrator refuses to start",
  ),
  SUBAGENT_MAX_DEPTH: envInt(1, 0, 4).describe(
    "how deep subagents may nest: 1 lets a turn start subagents that cannot start their own; 0 turns run_subagent off",
  ),
  SUBAGENT_MAX_PER_TURN: envInt(8, 1, 64).describe("subagents one turn may start; the calls beyond get a SUBAGENT_LIMIT result"),
  SUBAGENT_CONCURRENCY: envInt(4, 1, 16).describe("subagents of one turn running at the same time"),
  SUBAGENT_TIMEOUT_MS: envInt(900_000, 1_000, 14_400_000).describe(
    "the longest a subagent may run, never beyond what is left of its parent's turn (the parent then gets SERVICE_TIMEOUT and goes on)",
  ),
  SUBAGENT_MAX_ITERATIONS: envInt(30, 1, 500).describe("model calls one subagent may make"),
  PROJECTS_PER_USER: envInt(100, 1, 100_000).describe(
    "projects one user may own besides their personal one (`POST /api/projects`); past it 409 PROJECT_LIMIT until they delete one (docs/projects.md \"Limits\"). Listings read only the caller's own projects, however many others hold",
  ),
  BUDGET_PROJECT_MONTHLY: optionalAmount.describe(
    "what one project may spend per UTC month, in the prices' currency (MODEL_PRICE, the routes' `price`); a project's owner may set its own (`PUT /api/projects/:id/budget`). Once spent, a new turn is refused with BUDGET_EXCEEDED (402) and a running one stops at its next model call (docs/models.md \"Budgets\"); unset: no limit",
  ),
  APPROVALS_DEFAULTS: approvalDefaults.describe(
    "the approval policies of a project that sets none, as JSON in the shape of the settings document's `approvals` (`{\"tools\":{\"save_output\":\"ask\"},\"commands\":[{\"pattern\":\"npm test\",\"policy\":\"allow\"}],\"deciders\":\"editors\",\"expire_minutes\":60}`); each key given replaces the built-in one (`tools` tool by tool). Built in: save_output, edit_file and run_script allow, run_command ask but for `git status*`, `git diff*`, `git log*`, `git show*`; the requester and the owner decide; a call waits 1440 minutes (docs/approvals.md)",
  ),
  APPROVALS_SWEEP_MS: envInt(30_000, 100, 3_600_000).describe(
    "how often each orchestrator looks for tool calls whose approval expired (their turns end with APPROVAL_EXPIRED) and for decided calls whose turn has not resumed (docs/approvals.md \"Expiry\")",
  ),
  BUDGET_USER_DAILY: optionalAmount.describe(
    "what one user may spend per UTC day across every project, in the prices' currency; enforced as BUDGET_PROJECT_MONTHLY is, and not overridable; unset: no limit",
  ),
}).superRefine((config, context) => {
  // a command or a script at its limit must still be answered: a tool-runner's reply after its window is dropped
  for (const name of ["COMMAND_TIMEOUT_MAX_MS", "SCRIPT_TIMEOUT_MS"] as const) {
    if (config[name] + config.TOOL_TIMEOUT_MS > toolReplyWindowMs) {
      context.addIssue({
        code: "custom",
        path: [name],
        message: `${name} + TOOL_TIMEOUT_MS is ${config[name] + config.TOOL_TIMEOUT_MS} ms: a tool-runner answers within ${toolReplyWindowMs} ms at most, so a run that long would never be answered`,
      });
    }
  }
});
export type OrchestratorConfig = z.infer<typeof orchestratorEnvSchema>;

/** A model is configured when either a key (OpenAI) or a base URL (a compatible server) is given. */
export const isModelConfigured = (config: OrchestratorConfig): boolean =>
  config.OPENAI_API_KEY !== undefined || config.OPENAI_BASE_URL !== undefined;

export const modelNotConfiguredMessage =
  "No model is configured. Set OPENAI_API_KEY (OpenAI), or OPENAI_BASE_URL for a compatible server " +
  "(e.g. Ollama: OPENAI_BASE_URL=http://localhost:11434/v1), and LLM_MODEL, then restart the orchestrator.";
