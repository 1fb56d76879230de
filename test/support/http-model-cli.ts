/**
 * `npm run model:scripted`: the scripted model on a fixed port, answering with the demo rules, so the
 * system can be tried by hand with OPENAI_BASE_URL=http://127.0.0.1:4010/v1. With SCRIPTED_MODEL_RESPONDER=bmad
 * it follows BMAD as the eval's checks expect (eval-responder.ts), and `bmad:<misbehaviour>` breaks one rule,
 * so `npm run eval` can be tried without a real model (docs/eval.md).
 */
import { demoResponder } from "./demo-responder.js";
import { bmadResponder, misbehaviours, type Misbehaviour } from "./eval-responder.js";
import { startHttpModel } from "./http-model.js";

const port = Number(process.env["SCRIPTED_MODEL_PORT"] ?? 4010);
const [kind, misbehaviour] = (process.env["SCRIPTED_MODEL_RESPONDER"] ?? "demo").split(":");
if (misbehaviour !== undefined && !misbehaviours.includes(misbehaviour as Misbehaviour)) {
  process.stderr.write(`SCRIPTED_MODEL_RESPONDER: bmad:<misbehaviour> takes one of ${misbehaviours.join(", ")}\n`);
  process.exit(2);
}
const model = await startHttpModel({ port, responder: kind === "bmad" ? bmadResponder(misbehaviour as Misbehaviour | undefined) : demoResponder });
process.stdout.write(`Scripted model (not a real LLM) listening: OPENAI_BASE_URL=${model.url}\n`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void model.close().then(() => process.exit(0));
  });
}
