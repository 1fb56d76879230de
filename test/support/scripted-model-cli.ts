/**
 * `npm run model:scripted`: the scripted model on a fixed port, answering with the demo rules, so the
 * system can be tried by hand with OPENAI_BASE_URL=http://127.0.0.1:4010/v1.
 */
import { demoResponder } from "./demo-responder.js";
import { startScriptedModel } from "./scripted-model.js";

const port = Number(process.env["SCRIPTED_MODEL_PORT"] ?? 4010);
const model = await startScriptedModel({ port, responder: demoResponder });
process.stdout.write(`Scripted model (not a real LLM) listening: OPENAI_BASE_URL=${model.url}\n`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void model.close().then(() => process.exit(0));
  });
}
