import type { TestProject } from "vitest/node";
import { unpackChromium } from "./chromium-path.js";
import { startTestNats } from "./nats-harness.js";

declare module "vitest" {
  export interface ProvidedContext {
    natsUrl: string;
  }
}

/**
 * One NATS server for the whole run; tests isolate themselves with their own names. It runs the
 * production permission config, and lets clients without credentials in as `admin`: the in-process
 * tests here play several services at once on their own subject prefixes. The browser the web page's tests drive
 * is unpacked here, once, before the test files start in parallel.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await unpackChromium();
  const nats = await startTestNats({ anonymousAdmin: true });
  project.provide("natsUrl", nats.url);
  return () => nats.stop();
}
