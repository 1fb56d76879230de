import type { TestProject } from "vitest/node";
import { startTestNats } from "./nats-harness.js";

declare module "vitest" {
  export interface ProvidedContext {
    natsUrl: string;
  }
}

/**
 * One NATS server for the whole run; tests isolate themselves with their own names. It runs the
 * production permission config, and lets clients without credentials in as `admin`: the in-process
 * tests here play several services at once on their own subject prefixes.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const nats = await startTestNats({ anonymousAdmin: true });
  project.provide("natsUrl", nats.url);
  return () => nats.stop();
}
