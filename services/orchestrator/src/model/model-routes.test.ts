import { describe, expect, it } from "vitest";
import { parseEnv } from "@agent-orchestrator/shared/runtime";
import { orchestratorEnvSchema } from "../config.js";
import { modelRoutesOf } from "./model-routes.js";

const configOf = (env: Record<string, string>) => {
  const parsed = parseEnv(orchestratorEnvSchema, { OPENAI_API_KEY: "sk-default", LLM_MODEL: "gpt-default", ...env });
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.value;
};

const routesOf = (setting: string, env: Record<string, string> = {}, files: Record<string, string> = {}) =>
  modelRoutesOf(configOf({ MODEL_ROUTES: setting }), env, (path) => {
    const text = files[path];
    if (text === undefined) throw Object.assign(new Error("missing"), { code: "ENOENT" });
    return text;
  });

describe("MODEL_ROUTES", () => {
  it("reads inline JSON, a YAML file and a JSON file, in order, the default route last", () => {
    const yaml = "routes:\n  - match: { agent: bmm/analyst }\n    base_url: http://localhost:11434/v1\n    model: qwen3:8b\n    api_key_env: LOCAL_KEY\n    temperature: 0.2\n    price: { input: 0.15, cached_input: 0.075, output: 0.6 }\n";
    const json = JSON.stringify({ routes: [{ name: "cheap", match: { module: "bmm" }, model: "gpt-mini" }] });
    const fromYaml = routesOf("/etc/routes.yaml", { LOCAL_KEY: "local" }, { "/etc/routes.yaml": yaml });
    expect(fromYaml).toEqual({
      ok: true,
      routes: [
        {
          name: "route-1",
          match: { agent: "bmm/analyst" },
          model: "qwen3:8b",
          baseUrl: "http://localhost:11434/v1",
          apiKey: "local",
          temperature: 0.2,
          price: { input: 0.15, cached_input: 0.075, output: 0.6 },
          contextWindow: 128_000,
          outputReserve: 8_192,
        },
        { name: "default", model: "gpt-default", baseUrl: undefined, apiKey: "sk-default", contextWindow: 128_000, outputReserve: 8_192 },
      ],
    });
    expect(routesOf("/etc/routes.json", {}, { "/etc/routes.json": json })).toEqual(routesOf(json));
    // a route without its own server calls the default's with the default's key
    expect(routesOf(json)).toMatchObject({ ok: true, routes: [{ name: "cheap", baseUrl: undefined, apiKey: "sk-default" }, { name: "default" }] });
  });

  it("never gives the default key to a route's own server", () => {
    const result = routesOf(JSON.stringify({ routes: [{ match: { project: "p1" }, base_url: "http://other.example/v1", model: "m" }] }));
    expect(result).toMatchObject({ ok: true, routes: [{ baseUrl: "http://other.example/v1", apiKey: undefined }, { name: "default" }] });
  });

  it("prices the default route from MODEL_PRICE", () => {
    const result = modelRoutesOf(configOf({ MODEL_PRICE: "0.15,,0.6" }));
    expect(result).toMatchObject({ ok: true, routes: [{ name: "default", price: { input: 0.15, output: 0.6 } }] });
  });

  it.each([
    ["bad JSON", '{"routes": [', {}, "Invalid configuration: MODEL_ROUTES: not valid JSON"],
    ["bad YAML", "/r.yaml", { "/r.yaml": "routes: [ {match: " }, "Invalid configuration: MODEL_ROUTES: /r.yaml is not valid YAML or JSON"],
    ["a missing file", "/missing.yaml", {}, "Invalid configuration: MODEL_ROUTES: cannot read /missing.yaml: ENOENT"],
    ["an unknown field", JSON.stringify({ routes: [{ name: "fast", match: { agent: "a" }, model: "m", temprature: 1 }] }), {}, 'route 1 (fast): (route): Unrecognized key: "temprature"'],
    ["an unknown match key", JSON.stringify({ routes: [{ match: { agents: "a" }, model: "m" }] }), {}, "route 1: match: Unrecognized key"],
    ["an empty match", JSON.stringify({ routes: [{ match: {}, model: "m" }] }), {}, "route 1: match: name at least one of agent, module, project"],
    ["no model", JSON.stringify({ routes: [{ match: { module: "bmm" } }] }), {}, "route 1: model:"],
    ["a bad price", JSON.stringify({ routes: [{ match: { module: "bmm" }, model: "m", price: { input: -1, output: 1 } }] }), {}, "route 1: price.input:"],
    ["a price without output", JSON.stringify({ routes: [{ match: { module: "bmm" }, model: "m", price: { input: 1 } }] }), {}, "route 1: price.output:"],
    ["a bad base URL", JSON.stringify({ routes: [{ match: { module: "bmm" }, model: "m", base_url: "localhost:11434" }] }), {}, "route 1: base_url:"],
    ["a temperature out of range", JSON.stringify({ routes: [{ match: { module: "bmm" }, model: "m", temperature: 3 }] }), {}, "route 1: temperature:"],
    ["a name used twice", JSON.stringify({ routes: [{ name: "x", match: { module: "a" }, model: "m" }, { name: "x", match: { module: "b" }, model: "m" }] }), {}, "route 2 (x): name: already used"],
    ["the default's name", JSON.stringify({ routes: [{ name: "default", match: { module: "a" }, model: "m" }] }), {}, "route 1 (default): name: already used"],
    ["a key variable that is not set", JSON.stringify({ routes: [{ match: { module: "a" }, model: "m", api_key_env: "LOCAL_KEY" }] }), {}, "route 1 (route-1): api_key_env: LOCAL_KEY is not set"],
    ["no routes list", JSON.stringify({ route: [] }), {}, 'routes: '],
    ["no match", JSON.stringify({ routes: [{ model: "m" }] }), {}, "route 1 (route-1): match: required"],
    ["a window below 1,024 tokens", JSON.stringify({ routes: [{ match: { module: "a" }, model: "m", context_window: 512 }] }), {}, "route 1: context_window:"],
    ["a reserve as large as the window", JSON.stringify({ routes: [{ match: { module: "a" }, model: "m", context_window: 4_096, output_reserve: 4_096 }] }), {}, "route 1 (route-1): output_reserve: 4096 must be below context_window (4096)"],
    ["a compaction route that matches turns", JSON.stringify({ routes: [{ purpose: "compaction", match: { module: "a" }, model: "m" }] }), {}, "route 1 (route-1): match: the compaction route serves no turn"],
    ["two compaction routes", JSON.stringify({ routes: [{ name: "s1", purpose: "compaction", model: "m" }, { name: "s2", purpose: "compaction", model: "m" }] }), {}, "route 2 (s2): purpose: only one"],
  ])("refuses %s with one line naming the route and the field", (_case, setting, files, message) => {
    const result = routesOf(setting, {}, files);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toContain(message);
    expect(result.error.startsWith("Invalid configuration: MODEL_ROUTES: ")).toBe(true);
    expect(result.error).not.toContain("\n");
  });

  it("gives every route a context window: its own, else MODEL_CONTEXT_WINDOW; and a reserve: its own, else its max_output_tokens, else MODEL_OUTPUT_RESERVE", () => {
    const routes = JSON.stringify({
      routes: [
        { name: "local", match: { agent: "bmm/pm" }, model: "qwen3:8b", context_window: 16_000, output_reserve: 2_000 },
        { name: "capped", match: { module: "bmm" }, model: "m", max_output_tokens: 4_000 },
        { name: "summaries", purpose: "compaction", model: "gpt-mini", context_window: 400_000 },
      ],
    });
    const result = modelRoutesOf(configOf({ MODEL_ROUTES: routes, MODEL_CONTEXT_WINDOW: "32768", MODEL_OUTPUT_RESERVE: "3000" }));
    expect(result).toMatchObject({
      ok: true,
      routes: [
        { name: "local", contextWindow: 16_000, outputReserve: 2_000 },
        { name: "capped", contextWindow: 32_768, outputReserve: 4_000 },
        { name: "summaries", purpose: "compaction", contextWindow: 400_000, outputReserve: 3_000 },
        { name: "default", contextWindow: 32_768, outputReserve: 3_000 },
      ],
    });
    expect(result.ok && result.routes[2]?.match).toBeUndefined();
  });

  it("refuses an output reserve as large as the default window", () => {
    expect(modelRoutesOf(configOf({ MODEL_CONTEXT_WINDOW: "4096", MODEL_OUTPUT_RESERVE: "8192" }))).toEqual({
      ok: false,
      error: "Invalid configuration: MODEL_OUTPUT_RESERVE (8192) must be below MODEL_CONTEXT_WINDOW (4096)",
    });
  });

  it("refuses a route to OpenAI's own API with no key at all", () => {
    const config = configOf({ OPENAI_API_KEY: "", OPENAI_BASE_URL: "", MODEL_ROUTES: JSON.stringify({ routes: [{ match: { module: "a" }, model: "gpt" }] }) });
    expect(modelRoutesOf(config, {})).toMatchObject({ ok: false, error: expect.stringContaining("route 1 (route-1): api_key_env: OpenAI's API needs a key") });
  });
});

describe("the orchestrator's model settings", () => {
  it("refuses the removed MODEL_TIMEOUT_MS with what to set instead", () => {
    const parsed = parseEnv(orchestratorEnvSchema, { MODEL_TIMEOUT_MS: "60000" });
    expect(parsed).toMatchObject({ ok: false, message: expect.stringContaining("MODEL_IDLE_TIMEOUT_MS") });
  });

  it("refuses the removed CONTEXT_BUDGET_TOKENS with what to set instead", () => {
    const parsed = parseEnv(orchestratorEnvSchema, { CONTEXT_BUDGET_TOKENS: "24000" });
    expect(parsed).toMatchObject({ ok: false, message: expect.stringContaining("MODEL_CONTEXT_WINDOW") });
  });

  it("refuses a MODEL_PRICE that is not three prices", () => {
    expect(parseEnv(orchestratorEnvSchema, { MODEL_PRICE: "0.15,0.6" })).toMatchObject({ ok: false, message: expect.stringContaining("MODEL_PRICE") });
    expect(parseEnv(orchestratorEnvSchema, { MODEL_PRICE: "a,b,c" })).toMatchObject({ ok: false });
  });
});
