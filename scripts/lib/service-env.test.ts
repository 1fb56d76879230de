import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { serviceEnvironment } from "./service-env.js";

const shell = {
  PATH: "/usr/bin",
  OPENAI_API_KEY: "sk-model",
  AUTH_TOKENS: "alice:s3cret-token",
  OIDC_CLIENT_SECRET: "oidc-secret",
  GITHUB_TOKEN: "ghp_x",
  AWS_SECRET_ACCESS_KEY: "aws",
  NATS_GATEWAY_PASSWORD: "n1",
  MODEL_CONTEXT_WINDOW: "32768",
  LLM_MODEL: "gpt-4o-mini",
};

describe("each service started with only the environment it needs", () => {
  it("gives the tool-runner and the registry no model key, no auth tokens and no other credential", () => {
    for (const service of ["tool-runner", "registry"]) {
      expect(Object.keys(serviceEnvironment(service, shell)).sort()).toEqual(["LLM_MODEL", "MODEL_CONTEXT_WINDOW", "PATH"]);
    }
  });

  it("gives the gateway its tokens but not the model key", () => {
    const environment = serviceEnvironment("gateway", shell);
    expect(environment["AUTH_TOKENS"]).toBe("alice:s3cret-token");
    expect(environment["OIDC_CLIENT_SECRET"]).toBe("oidc-secret");
    expect(environment).not.toHaveProperty("OPENAI_API_KEY");
  });

  it("gives the orchestrator the model key but not the gateway's tokens", () => {
    const environment = serviceEnvironment("orchestrator", shell);
    expect(environment["OPENAI_API_KEY"]).toBe("sk-model");
    expect(environment).not.toHaveProperty("AUTH_TOKENS");
    expect(environment).not.toHaveProperty("GITHUB_TOKEN");
  });

  it("gives the orchestrator the keys its model routes name in api_key_env, and no other service those keys (docs/security.md case 230)", async () => {
    const routes = { routes: [{ match: { module: "bmm" }, base_url: "https://openrouter.ai/api/v1", model: "m", api_key_env: "OPENROUTER_API_KEY" }] };
    const environment = { ...shell, OPENROUTER_API_KEY: "sk-or", GROQ_API_KEY: "gsk", MODEL_ROUTES: JSON.stringify(routes) };
    const orchestrator = serviceEnvironment("orchestrator", environment);
    expect(orchestrator["OPENROUTER_API_KEY"]).toBe("sk-or");
    expect(orchestrator).not.toHaveProperty("GROQ_API_KEY");
    for (const service of ["gateway", "tool-runner", "registry"]) expect(serviceEnvironment(service, environment)).not.toHaveProperty("OPENROUTER_API_KEY");
    // MODEL_ROUTES as a YAML file, as docs/models.md shows it
    const folder = await mkdtemp(join(tmpdir(), "ao-service-env-"));
    try {
      const file = join(folder, "routes.yaml");
      await writeFile(file, "routes:\n  - { match: { agent: bmm/analyst }, base_url: \"http://localhost:11434/v1\", model: qwen3:8b, api_key_env: LOCAL_KEY }\n");
      const fromFile = serviceEnvironment("orchestrator", { ...environment, LOCAL_KEY: "local", MODEL_ROUTES: file });
      expect(fromFile["LOCAL_KEY"]).toBe("local");
      expect(fromFile).not.toHaveProperty("OPENROUTER_API_KEY");
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it("passes no route key when MODEL_ROUTES cannot be read: the orchestrator stops with the reason instead (docs/security.md case 230)", () => {
    const environment = { ...shell, OPENROUTER_API_KEY: "sk-or", MODEL_ROUTES: '{"routes": [{"api_key_env": "OPENROUTER_API_KEY"' };
    expect(serviceEnvironment("orchestrator", environment)).not.toHaveProperty("OPENROUTER_API_KEY");
  });

  it("gives each service that serves metrics its own METRICS_PORT, and none to the others (docs/security.md case 146)", () => {
    const ports = { orchestrator: 9464, "tool-runner": 9465 };
    const environment = { ...shell, METRICS_PORT: "9464", METRICS_HOST: "127.0.0.1" };
    const given = Object.fromEntries(["registry", "tool-runner", "orchestrator", "gateway"].map((service) => [service, serviceEnvironment(service, environment, ports)["METRICS_PORT"]]));
    expect(given).toEqual({ registry: undefined, "tool-runner": "9465", orchestrator: "9464", gateway: undefined });
    expect(serviceEnvironment("tool-runner", environment, ports)["METRICS_HOST"]).toBe("127.0.0.1");
    expect(serviceEnvironment("orchestrator", environment, undefined)).not.toHaveProperty("METRICS_PORT");
  });
});
