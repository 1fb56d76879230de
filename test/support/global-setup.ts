import type { TestProject } from "vitest/node";
import { startTestNats } from "./nats-harness.js";

declare module "vitest" {
  export interface ProvidedContext {
    natsUrl: string;
  }
}

/** One NATS server for the whole test run; tests isolate themselves with their own names. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const nats = await startTestNats();
  project.provide("natsUrl", nats.url);
  return () => nats.stop();
}
