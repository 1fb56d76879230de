import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { sendOpenAiError } from "../openai/openai-error.js";
import { sendError } from "./send-error.js";

let server: ReturnType<ReturnType<typeof express>["listen"]>;
let url: string;
const refusal = new AppError("USER_TURN_LIMIT", "You already have 4 turns running, the most one user may run at once (4); this turn was not started.");

beforeAll(async () => {
  const app = express();
  app.get("/api", (_request, response) => sendError(response, refusal));
  app.get("/v1", (_request, response) => sendOpenAiError(response, refusal));
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

describe("a turn refused at the user's turn limit (case 134)", () => {
  it("is a 429 with retry-after and the reason, on /api", async () => {
    const response = await fetch(`${url}/api`);
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("5");
    expect(await response.json()).toEqual({ success: false, error: { code: "USER_TURN_LIMIT", message: refusal.message } });
  });

  it("is OpenAI's rate_limit_error with retry-after on /v1, which OpenAI's clients wait for before they retry", async () => {
    const response = await fetch(`${url}/v1`);
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("5");
    expect(await response.json()).toMatchObject({ error: { type: "rate_limit_error", code: "user_turn_limit", message: refusal.message } });
  });
});
