/**
 * `npm run docs:config`: writes docs/configuration.md from the services' zod config schemas: one table per
 * service with each variable's default, allowed values and `.describe()` text. The schemas are the only
 * source; scripts/generate-configuration-docs.test.ts fails when the file differs from what this produces.
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { baseEnvSchema, telemetryEnvSchema } from "@agent-orchestrator/shared/runtime";
import { gatewayEnvSchema } from "@agent-orchestrator/gateway";
import { orchestratorEnvSchema } from "@agent-orchestrator/orchestrator";
import { registryEnvSchema } from "@agent-orchestrator/registry";
import { toolRunnerEnvSchema } from "@agent-orchestrator/tool-runner";

/** Where the document is written, relative to the repository root. */
export const configurationDocPath = fileURLToPath(new URL("../docs/configuration.md", import.meta.url));

/** One table of the document: a heading, a line of text, and the variables of `schema` not in `without`. */
export interface ConfigSection {
  heading: string;
  text: string;
  schema: z.ZodObject;
  without?: z.ZodObject;
}

/** The tables, in order. Every variable of every service's schema is in exactly one of them. */
export const configSections: readonly ConfigSection[] = [
  {
    heading: "Every service",
    text: "Read by the registry, the tool-runner, the orchestrator and the gateway (`shared/src/runtime/env-config.ts`).",
    schema: baseEnvSchema,
  },
  {
    heading: "Tracing and metrics",
    text:
      "Read by every service at start (`shared/src/runtime/telemetry/telemetry-env.ts`); docs/operations.md \"Observability\" " +
      "says what is traced and measured.",
    schema: telemetryEnvSchema,
  },
  {
    heading: "registry",
    text: "`services/registry/src/config.ts`, besides the settings every service reads.",
    schema: registryEnvSchema,
    without: baseEnvSchema,
  },
  {
    heading: "tool-runner",
    text: "`services/tool-runner/src/config.ts`, besides the settings every service reads. Sizes are bytes unless the name says MB.",
    schema: toolRunnerEnvSchema,
    without: baseEnvSchema,
  },
  {
    heading: "orchestrator",
    text: "`services/orchestrator/src/config.ts`, besides the settings every service reads.",
    schema: orchestratorEnvSchema,
    without: baseEnvSchema,
  },
  {
    heading: "gateway",
    text: "`services/gateway/src/config.ts`, besides the settings every service reads.",
    schema: gatewayEnvSchema,
    without: baseEnvSchema,
  },
];

/** The variables a section lists: its schema's keys, less those of `without`. */
export function sectionVariables(section: ConfigSection): string[] {
  const excluded = new Set(section.without ? Object.keys(section.without.shape) : []);
  return Object.keys(section.schema.shape).filter((name) => !excluded.has(name));
}

/** What the table says of one variable. */
export interface VariableDoc {
  name: string;
  defaultValue: string;
  allowed: string;
  description: string;
}

/** Reads default, allowed values and description of one variable from its schema. */
export function describeVariable(name: string, schema: z.ZodType): VariableDoc {
  let defaultValue: unknown;
  let hasDefault = false;
  let current: z.ZodType = schema;
  // peel the wrappers that say nothing of the values: default, optional, and a pipe whose output decides
  for (;;) {
    if (current instanceof z.ZodDefault) {
      if (!hasDefault) {
        defaultValue = current.def.defaultValue;
        hasDefault = true;
      }
      current = current.def.innerType as z.ZodType;
    } else if (current instanceof z.ZodOptional) {
      current = current.def.innerType as z.ZodType;
    } else if (current instanceof z.ZodCodec && current.def.out instanceof z.ZodBoolean) {
      current = current.def.out as z.ZodType;
    } else if (current instanceof z.ZodPipe) {
      // a pipe into a transform parses its own text format (the description gives it); else the output decides
      current = (current.def.out instanceof z.ZodTransform ? current.def.in : current.def.out) as z.ZodType;
    } else break;
  }
  return {
    name,
    defaultValue: hasDefault ? formatValue(name, defaultValue) : "—",
    allowed: allowedValues(name, current),
    description: schema.description ?? "",
  };
}

function allowedValues(name: string, schema: z.ZodType): string {
  if (schema instanceof z.ZodNumber) {
    const range = `${formatValue(name, schema.minValue)} … ${formatValue(name, schema.maxValue)}`;
    return schema.isInt ? `integer, ${range}` : range;
  }
  if (schema instanceof z.ZodEnum) return schema.options.map((option) => `\`${String(option)}\``).join(", ");
  if (schema instanceof z.ZodBoolean) return "`true` or `false` (also `1`/`0`, `yes`/`no`, `on`/`off`)";
  if (schema instanceof z.ZodURL) return "a URL";
  if (schema instanceof z.ZodString) {
    const pattern = schema.def.checks?.map((check) => check._zod.def).find((check) => "pattern" in check && check.pattern instanceof RegExp);
    return pattern && "pattern" in pattern && pattern.pattern instanceof RegExp ? `text matching \`${pattern.pattern.source}\`` : "text";
  }
  throw new Error(`${name}: no rule to describe a ${schema.def.type} schema in docs/configuration.md`);
}

const binaryUnits: ReadonlyArray<[number, string]> = [
  [1024 ** 4, "TiB"],
  [1024 ** 3, "GiB"],
  [1024 ** 2, "MiB"],
  [1024, "KiB"],
];
const timeUnits: ReadonlyArray<[number, string]> = [
  [86_400_000, "d"],
  [3_600_000, "h"],
  [60_000, "min"],
  [1_000, "s"],
];

/** A value as the table shows it: code, with bytes and milliseconds also in a larger unit when exact. */
function formatValue(name: string, value: unknown): string {
  if (typeof value === "number") {
    const units = /BYTES/.test(name) ? binaryUnits : /_MS$/.test(name) ? timeUnits : [];
    const unit = units.find(([size]) => value >= size && value % size === 0);
    return unit ? `\`${value}\` (${value / unit[0]} ${unit[1]})` : `\`${value}\``;
  }
  if (value === "") return "empty";
  return `\`${String(value)}\``;
}

const cell = (text: string): string => text.replace(/\s+/g, " ").replace(/\|/g, "\\|");

function renderSection(section: ConfigSection): string {
  const rows = sectionVariables(section).map((name) => {
    const doc = describeVariable(name, section.schema.shape[name] as z.ZodType);
    return `| \`${doc.name}\` | ${cell(doc.defaultValue)} | ${cell(doc.allowed)} | ${cell(doc.description)} |`;
  });
  return [`## ${section.heading}`, "", section.text, "", "| variable | default | allowed | meaning |", "|---|---|---|---|", ...rows].join("\n");
}

const preamble = `# Configuration

<!-- Generated by \`npm run docs:config\` (scripts/generate-configuration-docs.ts) from the services' zod
schemas. Do not edit by hand: change the schema's \`.describe()\` text and run the script again. -->

Every service reads its settings from the environment and checks them at start against its zod schema. A
bad value stops the process with one line naming the variable, e.g.
\`Invalid configuration: PORT ("eighty"): …\`; a secret's value (\`*PASSWORD*\`, \`*KEY*\`, \`*TOKEN*\`,
\`*SECRET*\`) is never shown. "—" as a default means unset. Ranges include both ends.

A variable two services read (\`BMAD_ROOT\`, \`JS_REPLICAS\`, \`TOOL_CONCURRENCY\`) is listed under each, since
its meaning there differs. \`npm start\` gives each service only the secrets it uses
(\`scripts/lib/service-env.ts\`): the orchestrator \`OPENAI_API_KEY\` and the keys MODEL_ROUTES names in
\`api_key_env\`, the gateway \`AUTH_TOKENS\`, each its own NATS password.`;

const epilogue = `## Read by the OpenTelemetry SDK

Besides the variables above, the OpenTelemetry SDK reads its standard variables itself when tracing is on:
\`OTEL_SERVICE_NAME\` (default: the service's name, \`gateway\`, \`orchestrator\`, \`registry\` or
\`tool-runner\`), \`OTEL_RESOURCE_ATTRIBUTES\`, \`OTEL_TRACES_SAMPLER\` and \`OTEL_TRACES_SAMPLER_ARG\` (default
\`parentbased_always_on\`; e.g. \`parentbased_traceidratio\` with \`0.1\` keeps one trace in ten),
\`OTEL_EXPORTER_OTLP_HEADERS\`, \`OTEL_BSP_SCHEDULE_DELAY\` and the others, as the SDK documents them.

## Read by the launcher and the tests

Not settings of a service; \`npm start\`, \`npm test\` and the scripts read them.

| variable | read by | meaning |
|---|---|---|
| \`NATS_URL\` | \`npm start\`, \`npm test\` | a NATS server to use; unset, they start a private \`nats-server\` (\`npm test\`: or a container when Docker runs) |
| \`NATS_SERVER_BIN\` | \`npm start\`, \`npm test\` | the \`nats-server\` binary, when it is not on \`PATH\` or in \`/usr/sbin\` |
| \`NATS_REGISTRY_PASSWORD\`, \`NATS_TOOL_RUNNER_PASSWORD\`, \`NATS_ORCHESTRATOR_PASSWORD\`, \`NATS_GATEWAY_PASSWORD\`, \`NATS_ADMIN_PASSWORD\` | nats-server, \`npm start\` | each NATS user's password (docs/operations.md "NATS users and permissions"); \`npm start\` generates the ones not set, and with \`NATS_URL\` logs each service in as its own user only when they are set |
| \`BMAD_INSTALL_CACHE\` | \`npm test\`, \`scripts/install-bmad.ts\` | where BMAD releases fetched from npm are kept; default \`~/.cache/agent-orchestrator/bmad-installs\`, for root \`/var/cache/agent-orchestrator/bmad-installs\` |
| \`CHROMIUM_PATH\` | the web page's browser test | the Chromium binary to drive; unset, Debian's \`chromium\` when installed, else the one \`@sparticuz/chromium\` carries |
| \`SCRIPTED_MODEL_PORT\` | \`npm run model:scripted\` | the scripted model's port (default \`4010\`) |

The benchmark's own variables (\`BENCH_QUICK\`, \`BENCH_ONLY\`, \`BENCH_PROFILE\`) are in bench/README.md.`;

/** The whole document, as the schemas say it today. */
export function configurationDocument(): string {
  return [preamble, ...configSections.map(renderSection), epilogue].join("\n\n") + "\n";
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  writeFileSync(configurationDocPath, configurationDocument());
  console.log(`wrote ${configurationDocPath}`);
}
