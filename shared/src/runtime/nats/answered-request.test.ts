import { randomUUID } from "node:crypto";
import { connect, ErrorCode, NatsError, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { answerRequestsWithoutCancelErrors } from "./answered-request.js";

let connection: NatsConnection;

beforeAll(async () => {
  answerRequestsWithoutCancelErrors();
  connection = await connect({ servers: inject("natsUrl"), noAsyncTraces: true });
});

afterAll(async () => {
  await connection.drain();
});

describe("answerRequestsWithoutCancelErrors", () => {
  it("answers each request with its own reply and builds no error for it", async () => {
    const subject = `answered.${randomUUID()}`;
    const responder = connection.subscribe(subject, { callback: (_error, message) => message.respond(message.data) });
    const built = vi.spyOn(NatsError, "errorForCode");
    try {
      for (let index = 0; index < 5; index++) expect(new TextDecoder().decode((await connection.request(subject, `ping ${index}`)).data)).toBe(`ping ${index}`);
      expect(built).not.toHaveBeenCalled();
    } finally {
      built.mockRestore();
      responder.unsubscribe();
    }
  });

  it("still fails a request nobody answers, and one that times out", async () => {
    await expect(connection.request(`nobody.${randomUUID()}`, "hello")).rejects.toMatchObject({ code: ErrorCode.NoResponders });
    const subject = `silent.${randomUUID()}`;
    const silent = connection.subscribe(subject, { callback: () => undefined });
    try {
      await expect(connection.request(subject, "hello", { timeout: 100 })).rejects.toMatchObject({ code: ErrorCode.Timeout });
    } finally {
      silent.unsubscribe();
    }
  });
});
