import { createLogger, connectNats } from "@agent-orchestrator/shared/runtime";
import { serviceNames } from "@agent-orchestrator/shared/wire";
import { orchestratorEnvSchema, ToolClient, toolWaitsOf } from "@agent-orchestrator/orchestrator";
import type { BenchContext } from "./bench-context.js";
import { startDistributionFloor, type DistributionFloor } from "./distribution-floor.js";
import { createInProcessAgent } from "./in-process-agent.js";
import { settings } from "./service-settings.js";

/**
 * The floor of a whole session (measures 3 and 5): the in-process loop behind the hops a turn cannot avoid,
 * its tool call sent over NATS to the tool-runner of the system in this process, its answer one stored event.
 */
export async function startSessionFloor(context: BenchContext): Promise<DistributionFloor> {
  const { system, tree } = context;
  const connection = await connectNats({ url: context.nats.url, service: serviceNames.orchestrator, logger: createLogger("bench", "silent"), credentials: null });
  const overNats = await createInProcessAgent(system, tree.sessionAgent, new ToolClient(connection, toolWaitsOf(settings(orchestratorEnvSchema, system.env)), "bench."));
  const floor = await startDistributionFloor(context.nats.url, async (emit) => emit((await overNats.runTurn(context.sessionMessage)).response));
  return {
    url: floor.url,
    async stop() {
      await floor.stop();
      await connection.close();
    },
  };
}
