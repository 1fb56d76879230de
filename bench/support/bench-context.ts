import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { startHttpModel, type HttpModel } from "@agent-orchestrator/testing/http-model";
import { createBenchBmadTree, type BenchBmadTree } from "./bench-bmad-tree.js";
import { settleMs } from "./bench-settings.js";
import { startBenchNats, type BenchNats } from "./bench-nats.js";
import { createBenchResponder, type BenchResponder } from "./bench-responder.js";
import { startBenchSystem, type BenchSystem } from "./bench-system.js";

/** Everything the measures share: one server, one model, one BMAD tree, one running system. */
export interface BenchContext {
  nats: BenchNats;
  model: HttpModel;
  responder: BenchResponder;
  tree: BenchBmadTree;
  /** OUTPUT_ROOT of every system: where sessions were written before projects (empty; every file is in JetStream) */
  outputRoot: string;
  /** the four services in this process on the prefix `bench.` */
  system: BenchSystem;
  /** the user message of "a session": 2 model calls, 1 tool call reading the no-op-sized file */
  sessionMessage: string;
  /** starts another system on the same server and model (its own prefix); stopped with the context */
  startSystem(prefix: string, orchestrator: "in-process" | "external", overrides?: Record<string, string>): Promise<BenchSystem>;
  /** forgets the scripted model's recorded requests, which would otherwise grow with every sample */
  forgetRequests(): void;
  /**
   * Between two sequential turns: forgets the requests and waits `settleMs`, so the tail of a turn (its
   * final session update and work-queue ack, after the client already has the answer) is not charged
   * to the next sample. An interactive user leaves seconds between turns; measure 5 charges the tail.
   */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

export async function startBenchContext(): Promise<BenchContext> {
  const nats = await startBenchNats();
  const tree = await createBenchBmadTree();
  const responder = createBenchResponder(tree);
  const model = await startHttpModel({ responder: (request) => responder.respond(request) });
  const outputRoot = await mkdtemp(join(tmpdir(), "bench-outputs-"));
  const systems: BenchSystem[] = [];
  const startSystem = async (prefix: string, orchestrator: "in-process" | "external", overrides: Record<string, string> = {}) => {
    const started = await startBenchSystem({ natsUrl: nats.url, modelUrl: model.url, bmadRoot: tree.root, outputRoot, prefix, orchestrator, overrides });
    systems.push(started);
    return started;
  };
  const system = await startSystem("bench.", "in-process");
  const forgetRequests = () => {
    model.requests.length = 0;
  };
  return {
    nats,
    model,
    responder,
    tree,
    outputRoot,
    system,
    sessionMessage: `read ${tree.noopFile}`,
    startSystem,
    forgetRequests,
    settle: async () => {
      forgetRequests();
      await sleep(settleMs);
    },
    async stop() {
      for (const started of systems.reverse()) await started.stop();
      await model.close();
      await nats.stop();
      await tree.remove();
      await rm(outputRoot, { recursive: true, force: true });
    },
  };
}
