/**
 * Measure 7: what lazy loading saves. The prompt of the first model call for an agent with 15 workflows,
 * as the system sends it (persona, config, menu; workflow files only when one is started), against the
 * same prompt with every workflow file inlined, the way an agent is run when its files are pasted in.
 */
import { readFile } from "node:fs/promises";
import OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { toolDefinitionsForModel } from "@agent-orchestrator/shared/wire";
import type { BenchContext } from "./support/bench-context.js";
import { bmadMedianBytes, plannerWorkflowCount } from "./support/bench-bmad-tree.js";
import { chatJson } from "./support/gateway-client.js";
import { formatRatio, type MeasureReport } from "./support/measure-report.js";

export async function measureLazyLoading(context: BenchContext): Promise<MeasureReport> {
  const { system, tree, model, responder } = context;
  responder.delayMs = 0;
  context.forgetRequests();
  const answer = await chatJson(system.gatewayUrl, { agent_id: tree.plannerAgent, message: "answer hello" });
  const firstRequest = model.requests[0];
  if (!firstRequest || answer.iterations !== 1) throw new Error("expected exactly one model call");
  const lazyTokens = answer.usage.prompt_tokens;

  // every file of every workflow (yaml, instructions, template, checklist), and the engine once
  const virtualPaths = [...new Set(Array.from({ length: plannerWorkflowCount }, (_, offset) => tree.workflowFiles(offset + 1)).flat())];
  const inlined = await Promise.all(virtualPaths.map(async (path) => `--- ${path} ---\n${await readFile(tree.hostPath(path), "utf8")}--- end of ${path} ---`));
  const [systemMessage, ...rest] = firstRequest.body.messages as ChatCompletionMessageParam[];
  if (systemMessage?.role !== "system" || typeof systemMessage.content !== "string") throw new Error("the first message is not the system prompt");
  const eager: ChatCompletionMessageParam[] = [{ role: "system", content: `${systemMessage.content}\n\nWORKFLOW FILES:\n${inlined.join("\n\n")}` }, ...rest];
  const client = new OpenAI({ apiKey: "bench", baseURL: model.url, maxRetries: 0 });
  const completion = await client.chat.completions.create({ model: "scripted", messages: eager, tools: toolDefinitionsForModel() });
  const eagerTokens = completion.usage?.prompt_tokens ?? Number.NaN;
  context.forgetRequests();

  const ratio = eagerTokens / lazyTokens;
  return {
    id: 7,
    title: "lazy loading",
    method:
      `Prompt tokens of the first model call for a generated agent with ${plannerWorkflowCount} workflows, as counted by the scripted model ` +
      `(an estimate: characters of the messages' JSON / 4; tool definitions not counted, the same for both): the system's own first ` +
      `call vs the same messages with all ${virtualPaths.length} workflow files inlined (each workflow's yaml, instructions, template, ` +
      `checklist, plus the engine once). File sizes are the medians of BMAD-METHOD v6.0.0-alpha.5 bmm workflows: ` +
      `instructions ${bmadMedianBytes.instructions} B, checklist ${bmadMedianBytes.checklist} B, workflow.yaml ${bmadMedianBytes.workflowYaml} B, ` +
      `template ${bmadMedianBytes.template} B, engine ${bmadMedianBytes.engine} B.`,
    rows: [
      {
        label: "prompt tokens of the first call",
        baseline: String(eagerTokens),
        system: String(lazyTokens),
        result: `${formatRatio(ratio)} fewer`,
        target: "≥ 20× fewer",
        met: ratio >= 20,
      },
    ],
    details: { lazyTokens, eagerTokens, files: virtualPaths.length, workflows: plannerWorkflowCount, sizes: bmadMedianBytes },
    notes: ["Real tokenizers give other absolute numbers; the ratio is what carries over."],
  };
}
