/**
 * The orchestrator alone in a child process (measure 9), so its memory can be read without the benchmark's
 * own allocations mixed in. Run with `node --expose-gc --import tsx`; configured by the environment like
 * the real service, plus BENCH_PREFIX. Answers "memory" messages over IPC with process.memoryUsage()
 * taken after full garbage collections, so the figures are live memory, not garbage not yet collected.
 */
import { connectNats, createLogger } from "@agent-orchestrator/shared/runtime";
import { serviceNames } from "@agent-orchestrator/shared/wire";
import { orchestratorEnvSchema, startOrchestrator } from "@agent-orchestrator/orchestrator";
import { settings } from "./service-settings.js";

const env = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
const config = settings(orchestratorEnvSchema, env);
const logger = createLogger(serviceNames.orchestrator, "silent");
// no credentials: the bench server lets such clients in as admin, since the prefixed subjects are not in the per-service rules
const connection = await connectNats({ url: config.NATS_URL, service: serviceNames.orchestrator, logger, credentials: null });
const orchestrator = await startOrchestrator({ connection, config, logger, subjectPrefix: env["BENCH_PREFIX"] ?? "" });
const collect = (globalThis as { gc?: () => void }).gc;
if (!collect) throw new Error("run with --expose-gc");

process.on("message", (message: unknown) => {
  if (message === "memory") {
    for (let pass = 0; pass < 3; pass++) collect();
    process.send?.({ type: "memory", usage: process.memoryUsage() });
  } else if (message === "stop") {
    void orchestrator
      .stop()
      .then(() => connection.drain())
      .then(() => process.exit(0));
  }
});
process.send?.({ type: "ready" });
