import { describe, expect, inject, it } from "vitest";
import { natsIsExternal, testNatsCredentials } from "@agent-orchestrator/testing/nats-harness";
import { connectNats, natsCredentialsFromEnv } from "./nats-connection.js";
import { capturingLogger } from "../testing/capturing-logger.js";

const asUser = (user: "tool-runner") => {
  const { NATS_USER, NATS_PASSWORD } = testNatsCredentials(user);
  return { user: NATS_USER, password: NATS_PASSWORD };
};

describe("natsCredentialsFromEnv", () => {
  it("reads NATS_USER and NATS_PASSWORD together, or nothing", () => {
    expect(natsCredentialsFromEnv({ NATS_USER: "gateway", NATS_PASSWORD: "secret-secret" })).toEqual({ user: "gateway", password: "secret-secret" });
    expect(natsCredentialsFromEnv({})).toBeNull();
    expect(natsCredentialsFromEnv({ NATS_USER: " ", NATS_PASSWORD: "" })).toBeNull();
  });
});

// the run's shared server has the permission config only when the harness started it (not with NATS_URL)
describe.skipIf(natsIsExternal())("connectNats against the permission config", () => {
  it("connects as the service's own user and logs a denied publish as a permission violation", async () => {
    const { lines, logger } = capturingLogger();
    const connection = await connectNats({ url: inject("natsUrl"), service: "tool-runner", logger, credentials: asUser("tool-runner") });
    try {
      expect(lines).toContainEqual(expect.objectContaining({ msg: "connected to NATS", user: "tool-runner" }));
      // a denied publish does not throw: it only shows on the status stream, which connectNats logs
      connection.publish("agent.run.events.s1.r1");
      await connection.flush();
      await expect.poll(() => lines, { timeout: 10_000 }).toContainEqual(
        expect.objectContaining({ level: 50, msg: "NATS permission violation", permission: { operation: "publish", subject: "agent.run.events.s1.r1" } }),
      );
    } finally {
      await connection.close();
    }
  });

  it("fails at once with a clear error when the password is wrong", async () => {
    const { lines, logger } = capturingLogger();
    // the rejection itself shows it gave up rather than retrying for ever (which would hit the test's timeout)
    await expect(
      connectNats({ url: inject("natsUrl"), service: "tool-runner", logger, credentials: { user: "tool-runner", password: "wrong-password-0" } }),
    ).rejects.toThrow('NATS refused the credentials of user "tool-runner" (Authorization Violation): check NATS_USER and NATS_PASSWORD');
    expect(lines).toContainEqual(expect.objectContaining({ level: 60, user: "tool-runner" }));
  });
});
