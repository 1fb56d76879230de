import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

/** The orchestrator running in a child process, with its memory readable over IPC. */
export interface OrchestratorProcess {
  pid: number;
  /** memory after full garbage collections */
  memory(): Promise<NodeJS.MemoryUsage>;
  stop(): Promise<void>;
}

const childScript = fileURLToPath(new URL("./orchestrator-child.ts", import.meta.url));
// `--import tsx` is resolved from the working directory: the repo root, where tsx is installed
const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** Starts `orchestrator-child.ts` with the given environment and resolves once it takes turns. */
export async function startOrchestratorProcess(env: Record<string, string>): Promise<OrchestratorProcess> {
  const child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", childScript], {
    cwd: repoRoot,
    env: { PATH: process.env["PATH"] ?? "", ...env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = once(child, "exit");
  const next = (type: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const onMessage = (message: Record<string, unknown>) => {
        if (message["type"] !== type) return;
        child.off("message", onMessage);
        resolve(message);
      };
      child.on("message", onMessage);
      void exited.then(() => reject(new Error(`the orchestrator process exited (${child.exitCode}) before "${type}"`)));
    });
  await next("ready");
  return {
    pid: child.pid ?? -1,
    async memory() {
      const answer = next("memory");
      child.send("memory");
      return (await answer)["usage"] as NodeJS.MemoryUsage;
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.send("stop");
      await exited;
    },
  };
}
