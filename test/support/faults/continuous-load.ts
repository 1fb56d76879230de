/**
 * Load that keeps going while a test does something else: `workers` clients each run load turns back to
 * back through a gateway until stopped. Every turn is checked like the load test checks it.
 */
import { randomUUID } from "node:crypto";
import { streamChat } from "./chat-client.js";
import { loadMessage } from "./load-responder.js";
import { checkTurn } from "./run-load.js";

export interface ContinuousLoad {
  /** turns finished so far */
  readonly finished: number;
  /** stops starting turns, waits for those running, and reports */
  stop(): Promise<{ turns: number; problems: string[] }>;
}

export function startContinuousLoad(gatewayUrl: string, workers: number): ContinuousLoad {
  let stopping = false;
  let finished = 0;
  const problems: string[] = [];
  const worker = async () => {
    while (!stopping) {
      const token = randomUUID().replace(/-/g, "");
      try {
        const turn = await streamChat(gatewayUrl, { agent_id: "idea-coach", message: loadMessage(token) });
        const problem = turn.status === 200 ? checkTurn(token, await turn.done) : `refused with ${turn.status}: ${JSON.stringify(turn.refused)}`;
        if (problem) problems.push(problem);
      } catch (error) {
        problems.push(`${token}: failed: ${String(error)}`);
      }
      finished++;
    }
  };
  const running = Array.from({ length: workers }, () => worker());
  return {
    get finished() {
      return finished;
    },
    async stop() {
      stopping = true;
      await Promise.all(running);
      return { turns: finished, problems };
    },
  };
}
