import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { truncateMiddle } from "../loop/truncate-middle.js";
import type { TurnDeps } from "./turn-deps.js";
import type { AdmittedTurn } from "./turn-state.js";

/**
 * The skill a subagent's parent named, loaded before the child's first model call and put into its conversation as
 * its own load_skill call, so the model starts on the skill's instructions. A skill that cannot be loaded ends the
 * child with that error: the parent asked for exactly this skill.
 */
export async function preloadedSkill(deps: Pick<TurnDeps, "tools" | "config">, turn: AdmittedTurn, skill: string): Promise<ChatCompletionMessageParam[]> {
  const callId = "preload_skill";
  const args = { name: skill };
  turn.events.emit({ type: "tool_call", call_id: callId, name: "load_skill", arguments: args });
  const started = performance.now();
  const result = await deps.tools.call("load_skill", `${turn.delivery}:${callId}`, turn.context, args, turn.controller.signal);
  turn.events.emit({
    type: "tool_result",
    call_id: callId,
    name: "load_skill",
    success: result.success,
    ...(result.success ? {} : { error_code: result.error.code }),
    duration_ms: Math.round((performance.now() - started) * 100) / 100,
  });
  if (!result.success) throw new AppError(result.error.code, `The skill ${skill} could not be loaded: ${result.error.message}`);
  return [
    { role: "assistant", content: null, tool_calls: [{ id: callId, type: "function", function: { name: "load_skill", arguments: JSON.stringify(args) } }] },
    { role: "tool", tool_call_id: callId, content: truncateMiddle(JSON.stringify(result), deps.config.TOOL_RESULT_MAX_CHARS) },
  ];
}
