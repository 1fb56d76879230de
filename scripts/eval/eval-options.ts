/**
 * The command line of `npm run eval` (docs/eval.md), parsed with zod into one options object, so the eval run
 * and its tests share one shape. A mistake is one line on stderr and exit code 2; `--help` prints the usage with
 * every option's meaning (the schema's descriptions) and exits 0.
 */
import { parseArgs } from "node:util";
import { z } from "zod";

export const EvalOptions = z
  .object({
    baseUrl: z.string().url().describe("the OpenAI-compatible endpoint, ending in /v1"),
    model: z.string().min(1).describe("the model name sent to the endpoint"),
    apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional().describe("the variable holding the endpoint's key"),
    bmadRoot: z.string().min(1).optional().describe("a folder holding a BMAD install (copied: the eval never writes into it)"),
    release: z.string().regex(/^\d+\.\d+\.\d+(-[\w.]+)?$/).optional().describe("a bmad-method release installed from npm"),
    tool: z.string().min(1).default("claude-code").describe("the installer's tool target for --release"),
    agents: z.array(z.string().min(1)).default([]).describe("agent ids or names; none: every agent the install ships"),
    repeat: z.number().int().min(1).max(100).default(1).describe("runs of every journey, 1 to 100; pass rates and pass^k are over these runs"),
    out: z.string().min(1).optional().describe("folder for report.json, report.md and the transcripts"),
    userName: z.string().min(1).default("Ada").describe("user_name written into the install's config"),
    language: z.string().min(1).default("French").describe("communication_language written into the install's config"),
    judgeModel: z.string().min(1).optional().describe("also score each step with this judge model (never part of the summary)"),
    judgeBaseUrl: z.string().url().optional().describe("the judge's endpoint; --base-url when absent"),
    judgeApiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional().describe("the judge's key variable; --api-key-env when absent"),
    compactionWindow: z
      .number()
      .int()
      .min(4_096)
      .max(10_000_000)
      .optional()
      .describe("also run the compaction journey, on a system whose model's window is this many tokens (e.g. 16000): the chat is compacted mid-workflow and graded on resuming"),
  })
  .refine((options) => options.bmadRoot === undefined || options.release === undefined, { message: "give --bmad-root or --release, not both" });
export type EvalOptions = z.infer<typeof EvalOptions>;
export type EvalOptionsInput = z.input<typeof EvalOptions>;

/** The release evaluated when neither --bmad-root nor --release is given: the newest the suite installs. */
export const defaultRelease = "6.12.0";

export const evalUsage =
  "usage: npm run eval -- --base-url URL --model NAME [--api-key-env VAR] [--bmad-root DIR | --release 6.12.0] [--tool claude-code]\n" +
  "       [--agents a,b] [--repeat N] [--out DIR] [--user-name Ada] [--language French]\n" +
  "       [--judge-model NAME [--judge-base-url URL] [--judge-api-key-env VAR]] [--compaction-window 16000]";

/** `--help`: the usage, then each option's flag and meaning from the schema, then where to read on. */
export function evalHelp(): string {
  const flag = (name: string) => `--${name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
  const options = Object.entries(EvalOptions.shape).map(([name, schema]) => `  ${flag(name).padEnd(22)}${schema.description ?? ""}`);
  return [evalUsage, "", "options:", ...options, `  ${"--help".padEnd(22)}this text`, "", "docs/eval.md says what each journey and check means and how to read the report."].join("\n");
}

export type EvalArguments = { ok: true; help: true } | { ok: true; help?: false; options: EvalOptions } | { ok: false; error: string };

/** The options of a command line, the wish to see the help, or a one-line error. */
export function parseEvalArguments(argv: readonly string[]): EvalArguments {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: [...argv],
      strict: true,
      options: {
        help: { type: "boolean", short: "h" },
        "base-url": { type: "string" },
        model: { type: "string" },
        "api-key-env": { type: "string" },
        "bmad-root": { type: "string" },
        release: { type: "string" },
        tool: { type: "string" },
        agents: { type: "string" },
        repeat: { type: "string" },
        out: { type: "string" },
        "user-name": { type: "string" },
        language: { type: "string" },
        "judge-model": { type: "string" },
        "judge-base-url": { type: "string" },
        "judge-api-key-env": { type: "string" },
        "compaction-window": { type: "string" },
      },
    }).values;
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  if (values["help"] === true) return { ok: true, help: true };
  const text = (name: string) => (typeof values[name] === "string" ? (values[name] as string) : undefined);
  const parsed = EvalOptions.safeParse({
    baseUrl: text("base-url"),
    model: text("model"),
    apiKeyEnv: text("api-key-env"),
    bmadRoot: text("bmad-root"),
    release: text("release"),
    tool: text("tool"),
    agents: text("agents")?.split(",").map((agent) => agent.trim()).filter((agent) => agent !== ""),
    repeat: text("repeat") === undefined ? undefined : Number(text("repeat")),
    out: text("out"),
    userName: text("user-name"),
    language: text("language"),
    judgeModel: text("judge-model"),
    judgeBaseUrl: text("judge-base-url"),
    judgeApiKeyEnv: text("judge-api-key-env"),
    compactionWindow: text("compaction-window") === undefined ? undefined : Number(text("compaction-window")),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const flag = issue?.path[0] === undefined ? "" : `--${String(issue.path[0]).replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}: `;
    return { ok: false, error: `${flag}${issue?.message ?? "invalid options"}` };
  }
  return { ok: true, options: parsed.data };
}
