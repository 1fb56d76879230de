import { AppError } from "@agent-orchestrator/shared/runtime";
import { expect } from "vitest";

/**
 * The AppError `promise` fails with; fails the test if it succeeds or throws anything else. The message must
 * not contain `hidden` (a host path: no verdict ever shows one).
 */
export async function appErrorOf(promise: Promise<unknown>, hidden: string): Promise<AppError> {
  const error = await promise.then(
    (result) => new Error(`expected a failure, got ${JSON.stringify(result)}`),
    (reason: unknown) => reason,
  );
  if (!AppError.is(error)) throw error;
  expect(error.message).not.toContain(hidden);
  return error;
}
