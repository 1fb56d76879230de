import { addUsage, zeroUsage, type Usage } from "@agent-orchestrator/shared/wire";
import type { SubagentRunner } from "../subagents/subagent-runner.js";
import type { UsageMeter } from "../model/usage-meter.js";

/** What a turn spent: its tokens with its subagents', each of its own model calls', and each subagent's. */
export interface TurnSpending {
  usage: Usage;
  byCall: Usage[];
  bySubagent: Array<{ call_id: string; usage: Usage }>;
}

/**
 * What a turn that did not complete spent: every model call it made (the meter keeps them when the loop's
 * exception loses its own sum) and its subagents', once the stopped ones have reported (a bounded wait,
 * `SubagentRunner.settled`). Undefined when it made no model call and started no subagent.
 */
export async function spentBeforeFailure(meter: UsageMeter | undefined, subagents: SubagentRunner | undefined): Promise<TurnSpending | undefined> {
  await subagents?.settled();
  const byCall = [...(meter?.byCall ?? [])];
  const bySubagent = [...(subagents?.usageBySubagent ?? [])];
  if (byCall.length === 0 && bySubagent.length === 0) return undefined;
  return { usage: addUsage(meter?.usage ?? zeroUsage(), subagents?.usage ?? zeroUsage()), byCall, bySubagent };
}
