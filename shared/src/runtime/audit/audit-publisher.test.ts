import { ErrorCode, NatsError, type NatsConnection } from "nats";
import { describe, expect, it } from "vitest";
import { capturingLogger } from "../../testing/capturing-logger.js";
import { settleOnFakeClock, useRetryTestClock } from "../../testing/retry-test-clock.js";
import { AuditPublisher, auditActorToken, auditProjectToken } from "./audit-publisher.js";

/** A connection whose JetStream publishes fail with `failures` in turn, then are acknowledged; what was published is kept. */
function connectionThatFails(failures: Array<() => Error>) {
  const published: Array<{ subject: string; record: Record<string, unknown>; msgID: string | undefined }> = [];
  const connection = {
    jetstream: () => ({
      publish: (subject: string, data: Uint8Array, options: { msgID?: string }) => {
        published.push({ subject, record: JSON.parse(new TextDecoder().decode(data)) as Record<string, unknown>, msgID: options.msgID });
        const failure = failures[published.length - 1];
        return failure ? Promise.reject(failure()) : Promise.resolve({ stream: "AUDIT", seq: published.length, duplicate: false });
      },
    }),
  } as unknown as NatsConnection;
  return { connection, published };
}

const timeout = () => NatsError.errorForCode(ErrorCode.Timeout);
const permissionDenied = () => NatsError.errorForCode(ErrorCode.PermissionsViolation);

useRetryTestClock();

describe("AuditPublisher", () => {
  it("publishes a record on its project's and actor's subject, with its id as the message id", async () => {
    const { connection, published } = connectionThatFails([]);
    const publisher = new AuditPublisher({ connection, subjectPrefix: "t1.", logger: capturingLogger().logger });
    await publisher.record({ actor: "ada@example.com", action: "file_uploaded", project_id: "p1", target: "docs/prd.md", outcome: "ok" });
    const [sent] = published;
    expect(sent?.subject).toBe(`t1.audit.p1.${Buffer.from("ada@example.com").toString("base64url")}.file_uploaded`);
    expect(sent?.record).toEqual({ id: sent?.msgID, time: expect.any(String), actor: "ada@example.com", action: "file_uploaded", project_id: "p1", target: "docs/prd.md", outcome: "ok" });
  });

  it("tries a timed-out publish again with the same message id, so JetStream stores it once", async () => {
    const { connection, published } = connectionThatFails([timeout, timeout]);
    const publisher = new AuditPublisher({ connection, subjectPrefix: "", logger: capturingLogger().logger });
    expect(await settleOnFakeClock(publisher.record({ actor: "bob", action: "token_created", target: "t1", outcome: "ok" }))).toEqual({ value: undefined });
    expect(published).toHaveLength(3);
    expect(new Set(published.map((sent) => sent.msgID)).size).toBe(1);
    expect(published[0]?.subject).toBe(`audit._.${auditActorToken("bob")}.token_created`);
  });

  it("never fails the act: a record that cannot be stored is logged and counted, and record() resolves", async () => {
    const { connection } = connectionThatFails(Array.from({ length: 100 }, () => permissionDenied));
    const { lines, logger } = capturingLogger();
    let lost = 0;
    const publisher = new AuditPublisher({ connection, subjectPrefix: "", logger, onLost: () => (lost += 1) });
    expect(await settleOnFakeClock(publisher.record({ actor: "bob", action: "project_deleted", project_id: "p1", outcome: "refused" }))).toEqual({ value: undefined });
    expect(lost).toBe(1);
    expect(lines).toContainEqual(expect.objectContaining({ msg: "audit record lost", audit: expect.objectContaining({ action: "project_deleted", actor: "bob" }) }));
  });

  it("cuts a long detail and target instead of refusing the record", async () => {
    const { connection, published } = connectionThatFails([]);
    await new AuditPublisher({ connection, subjectPrefix: "", logger: capturingLogger().logger }).record({ actor: "a", action: "sign_in_failed", outcome: "refused", detail: "x".repeat(5_000), target: "y".repeat(5_000) });
    expect(String(published[0]?.record["detail"])).toHaveLength(200);
    expect(String(published[0]?.record["target"])).toHaveLength(1024);
  });

  it("puts an id that is no plain token, and a missing actor, under `_`", () => {
    expect([auditProjectToken(undefined), auditProjectToken("a.b"), auditProjectToken("*"), auditProjectToken("p-1")]).toEqual(["_", "_", "_", "p-1"]);
    expect([auditActorToken("_"), auditActorToken("")]).toEqual(["_", "_"]);
    expect(auditActorToken("a.b *>")).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});
