/**
 * The production set-up, checked without a Docker engine (none runs on our machines): docker-compose.yml
 * against the services' own config schemas and deploy/nats/nats-server.conf, and the Dockerfile's shape.
 * A compose variable (`${NAME:-default}`, `${NAME:?message}`) is given a sample value, so the schemas see
 * what a container would get. When the nats-server binary is here, it validates the NATS config too.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { z } from "zod";
import { parseEnv } from "@agent-orchestrator/shared/runtime";
import { gatewayEnvSchema } from "@agent-orchestrator/gateway";
import { orchestratorEnvSchema } from "@agent-orchestrator/orchestrator";
import { registryEnvSchema } from "@agent-orchestrator/registry";
import { toolRunnerEnvSchema } from "@agent-orchestrator/tool-runner";
import { findNatsServerBinary } from "@agent-orchestrator/testing/local-nats";
import { generatePasswords, natsConfigFile, natsServiceUsers, natsUsers, passwordVariable, serverPasswordEnv, type NatsServiceUser } from "@agent-orchestrator/testing/nats-users";
import { repoRoot } from "@agent-orchestrator/testing/service-processes";

const ComposeService = z.object({
  image: z.string().optional(),
  build: z.string().optional(),
  command: z.array(z.string()).optional(),
  environment: z.record(z.string(), z.union([z.string(), z.number()])).default({}),
  volumes: z.array(z.string()).default([]),
  ports: z.array(z.string()).default([]),
  read_only: z.boolean().optional(),
  stop_grace_period: z.string().optional(),
  healthcheck: z.object({ test: z.array(z.string()) }).optional(),
  deploy: z.object({ replicas: z.number().int() }).optional(),
});
const Compose = z.object({ services: z.record(z.string(), ComposeService), volumes: z.record(z.string(), z.unknown()) });

const compose = Compose.parse(parse(readFileSync(join(repoRoot, "docker-compose.yml"), "utf8"), { merge: true }));
const clusterCompose = Compose.parse(parse(readFileSync(join(repoRoot, "docker-compose.cluster.yml"), "utf8"), { merge: true }));
const clusterConfigFile = join(repoRoot, "deploy/nats/nats-cluster.conf");
const natsConfig = readFileSync(natsConfigFile, "utf8");
const dockerfile = readFileSync(join(repoRoot, "Dockerfile"), "utf8");

const schemas: Record<NatsServiceUser, z.ZodObject> = {
  registry: registryEnvSchema,
  "tool-runner": toolRunnerEnvSchema,
  orchestrator: orchestratorEnvSchema,
  gateway: gatewayEnvSchema,
};

const service = (name: string, file = compose) => {
  const found = file.services[name];
  if (!found) throw new Error(`the compose file has no service ${name}`);
  return found;
};

/** The variables a compose value refers to, and the value with each given a sample (or its default). */
function interpolate(value: string): { value: string; variables: string[] } {
  const variables: string[] = [];
  const result = value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_whole, name: string, kind?: string, rest?: string) => {
    variables.push(name);
    if (kind === "-") return rest ?? "";
    // a required secret: something of the right shape
    return name === "AUTH_TOKENS" ? "admin:sample-token-0000" : `sample${name.replace(/_/g, "").toLowerCase()}`;
  });
  return { value: result, variables };
}

const environmentOf = (name: string, file = compose): Record<string, string> =>
  Object.fromEntries(Object.entries(service(name, file).environment).map(([key, value]) => [key, interpolate(String(value)).value]));

/** `source:target[:mode]` of one compose volume entry. */
const mount = (entry: string) => {
  const [source, target, mode] = entry.split(":");
  return { source: source ?? "", target: target ?? "", readOnly: mode === "ro" };
};

/** A duration like `11m`, `130s`, `2m` in milliseconds. */
const durationMs = (text: string) => {
  const match = /^(\d+)(ms|s|m|h)$/.exec(text);
  if (!match) throw new Error(`not a duration: ${text}`);
  return Number(match[1]) * { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[match[2] as "ms" | "s" | "m" | "h"];
};

/** The text of one user's block in the NATS config, from its `user:` line to the next one. */
function userBlock(user: string): string {
  const start = natsConfig.search(new RegExp(`user: "?${user}"?\\n`));
  expect(start, `user ${user} in the NATS config`).toBeGreaterThanOrEqual(0);
  const next = natsConfig.slice(start + 1).search(/\n\s*user: /);
  return next < 0 ? natsConfig.slice(start) : natsConfig.slice(start, start + 1 + next);
}

describe("docker-compose.yml", () => {
  it("runs NATS and the four services, two tool-runners, all services from one image", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["gateway", "nats", "orchestrator", "registry", "tool-runner"]);
    expect(service("tool-runner").deploy?.replicas).toBe(2);
    for (const name of natsServiceUsers) {
      expect(service(name)).toMatchObject({ image: "agent-orchestrator:latest", build: ".", read_only: true });
      expect(environmentOf(name)["SERVICE"]).toBe(name);
    }
  });

  it("gives each service only settings its own config schema knows, and values it accepts", () => {
    for (const name of natsServiceUsers) {
      const { SERVICE: _service, ...env } = environmentOf(name);
      const known = Object.keys(schemas[name].shape);
      expect(Object.keys(env).filter((key) => !known.includes(key)), `${name}: unknown settings`).toEqual([]);
      const parsed = parseEnv(schemas[name], env);
      expect(parsed, name).toMatchObject({ ok: true });
    }
  });

  it("connects each service as its own NATS user, with that user's password variable", () => {
    for (const name of natsServiceUsers) {
      const env = service(name).environment;
      expect(env["NATS_URL"]).toBe("nats://nats:4222");
      expect(env["NATS_USER"]).toBe(name);
      expect(interpolate(String(env["NATS_PASSWORD"])).variables).toEqual([passwordVariable(name)]);
    }
  });

  it("mounts bmad/ read-only where it is read, and no volume for files: they are in JetStream", () => {
    for (const [name, definition] of Object.entries(compose.services)) {
      for (const entry of definition.volumes.map(mount)) {
        if (entry.source === "./bmad") expect(entry.readOnly, `${name} mounts bmad/ read-only`).toBe(true);
      }
    }
    for (const name of ["registry", "tool-runner"]) {
      expect(service(name).volumes.map(mount)).toContainEqual({ source: "./bmad", target: `${environmentOf(name)["BMAD_ROOT"]}/bmad`, readOnly: true });
    }
    expect(service("tool-runner").volumes.map(mount).filter((entry) => !entry.readOnly)).toEqual([]);
    expect(service("orchestrator").volumes).toEqual([]);
    expect(service("gateway").volumes).toEqual([]);
    expect(Object.keys(compose.volumes).sort()).toEqual(["nats-data"]);
  });

  it("exposes the gateway with bearer tokens required", () => {
    expect(service("gateway").ports).toEqual(["3000:3000"]);
    expect(String(service("gateway").environment["AUTH_TOKENS"])).toMatch(/^\$\{AUTH_TOKENS:\?/);
    expect(environmentOf("gateway")["PORT"]).toBe("3000");
  });

  it("gives every service longer to stop than its own drain deadline", () => {
    for (const name of natsServiceUsers) {
      const grace = durationMs(service(name).stop_grace_period ?? "10s");
      // service-lifecycle.ts: 10 s; the orchestrator lets a running turn finish (TURN_TIMEOUT_MS + 5 s)
      const parsed = parseEnv(orchestratorEnvSchema, {});
      const deadline = name === "orchestrator" && parsed.ok ? parsed.value.TURN_TIMEOUT_MS + 5_000 : 10_000;
      expect(grace, name).toBeGreaterThan(deadline);
    }
  });

  it("runs NATS with JetStream on a volume and the permission config mounted read-only, given every password it reads", () => {
    const nats = service("nats");
    const command = nats.command ?? [];
    const configTarget = command[command.indexOf("-c") + 1];
    expect(nats.volumes.map(mount)).toContainEqual({ source: "./deploy/nats/nats-server.conf", target: configTarget, readOnly: true });
    expect(command).toContain("-js");
    expect(nats.volumes.map(mount)).toContainEqual({ source: "nats-data", target: command[command.indexOf("-sd") + 1], readOnly: false });
    const referenced = [...natsConfig.matchAll(/\$(NATS_\w+_PASSWORD)/g)].map((match) => match[1]).sort();
    expect(referenced).toEqual(natsUsers.map(passwordVariable).sort());
    expect(Object.keys(nats.environment).sort()).toEqual(referenced);
    expect(nats.healthcheck?.test.join(" ")).toContain("/healthz");
  });
});

describe("docker-compose.cluster.yml", () => {
  const servers = ["nats-1", "nats-2", "nats-3"];

  it("runs three NATS servers and the four services, the services from one image", () => {
    expect(Object.keys(clusterCompose.services).sort()).toEqual([...natsServiceUsers, ...servers].sort());
    for (const name of natsServiceUsers) expect(service(name, clusterCompose)).toMatchObject({ image: "agent-orchestrator:latest", build: ".", read_only: true });
  });

  it("gives each service settings its own config schema accepts, all three servers, and the orchestrator three replicas", () => {
    for (const name of natsServiceUsers) {
      const { SERVICE: service_, ...env } = environmentOf(name, clusterCompose);
      expect(service_).toBe(name);
      const known = Object.keys(schemas[name].shape);
      expect(Object.keys(env).filter((key) => !known.includes(key)), `${name}: unknown settings`).toEqual([]);
      expect(parseEnv(schemas[name], env), name).toMatchObject({ ok: true });
      expect(env["NATS_URL"]?.split(",")).toEqual(servers.map((server) => `nats://${server}:4222`));
      expect(env["NATS_USER"]).toBe(name);
    }
    expect(environmentOf("orchestrator", clusterCompose)["JS_REPLICAS"]).toBe("3");
    expect(environmentOf("gateway", clusterCompose)["JS_REPLICAS"]).toBe("3");
  });

  it("runs each server on the cluster config with its own name, its own store, every password, and routes to all three", () => {
    const names = servers.map((server) => environmentOf(server, clusterCompose)["NATS_SERVER_NAME"]);
    expect(names).toEqual(servers);
    for (const server of servers) {
      const definition = service(server, clusterCompose);
      const command = definition.command ?? [];
      const configTarget = command[command.indexOf("-c") + 1] ?? "";
      expect(definition.volumes.map(mount)).toContainEqual({ source: "./deploy/nats/nats-cluster.conf", target: configTarget, readOnly: true });
      // nats-cluster.conf includes nats-server.conf from its own folder
      expect(definition.volumes.map(mount)).toContainEqual({ source: "./deploy/nats/nats-server.conf", target: configTarget.replace(/[^/]+$/, "nats-server.conf"), readOnly: true });
      expect(definition.volumes.map(mount)).toContainEqual({ source: `nats-data-${server.slice(-1)}`, target: command[command.indexOf("-sd") + 1], readOnly: false });
      const env = definition.environment;
      for (const user of natsUsers) expect(interpolate(String(env[passwordVariable(user)])).variables).toEqual([passwordVariable(user)]);
      const routes = [1, 2, 3].map((index) => String(env[`NATS_ROUTE_${index}`]));
      expect(routes).toEqual(servers.map((peer) => `nats://route:\${NATS_ROUTE_PASSWORD:?run deploy/generate-env.sh > .env}@${peer}:6222`));
      expect(definition.healthcheck?.test.join(" ")).toContain("/healthz");
    }
    expect(Object.keys(clusterCompose.volumes).sort()).toEqual(["nats-data-1", "nats-data-2", "nats-data-3"]);
  });

  it("authenticates the routes, and keeps every user of nats-server.conf by including it", () => {
    const config = readFileSync(clusterConfigFile, "utf8");
    expect(config).toMatch(/^include "nats-server.conf"$/m);
    expect(config).toMatch(/authorization \{ user: route, password: \$NATS_ROUTE_PASSWORD \}/);
    expect(config).toMatch(/routes: \[\$NATS_ROUTE_1, \$NATS_ROUTE_2, \$NATS_ROUTE_3\]/);
    expect(readFileSync(join(repoRoot, "deploy/generate-env.sh"), "utf8")).toContain("NATS_ROUTE_PASSWORD=");
  });

  it.skipIf(!findNatsServerBinary())("is a valid nats-server config for each server", () => {
    for (const server of servers) {
      const check = spawnSync(findNatsServerBinary() as string, ["-c", clusterConfigFile, "-t"], {
        env: { ...process.env, ...serverPasswordEnv(generatePasswords()), ...environmentOf(server, clusterCompose) },
        encoding: "utf8",
      });
      expect(`${check.stdout}${check.stderr}`).toContain("is valid");
      expect(check.status).toBe(0);
    }
  });
});

describe("deploy/nats/nats-server.conf", () => {
  it("names one user per service and an admin, and nothing else", () => {
    const users = [...natsConfig.matchAll(/^\s*user: "?([\w-]+)"?$/gm)].map((match) => match[1]).sort();
    expect(users).toEqual([...natsUsers].sort());
    expect(natsConfig).not.toMatch(/no_auth_user/);
  });

  it("gives no service the JetStream API wholesale, the registry no JetStream at all, and the tool-runner only its file store's and repositories'", () => {
    for (const user of natsServiceUsers) expect(userBlock(user), user).not.toContain('"$JS.API.>"');
    expect(userBlock("registry")).not.toContain("$JS.");
    // the tool-runner keeps the files in JetStream (docs/projects.md "Storage"): its own buckets and object store, nothing else
    const toolRunner = userBlock("tool-runner");
    const ownStreams = ["KV_file_index", "KV_file_revisions", "KV_tool_calls", "OBJ_file_contents", "OBJ_file_uploads", "KV_repositories", "KV_repository_credentials", "OBJ_repository_packs"];
    const api = [...toolRunner.matchAll(/"(\$JS\.API\.[^"]+)"/g)].map((match) => match[1] ?? "");
    expect(api.length).toBeGreaterThan(1);
    // INFO says whether JetStream is on; STREAM.NAMES answers stream names only (nats.js looks up an object's stream by it)
    for (const subject of api.filter((subject) => subject !== "$JS.API.INFO" && subject !== "$JS.API.STREAM.NAMES")) {
      expect(ownStreams.some((stream) => subject.split(".").includes(stream)), subject).toBe(true);
    }
    for (const subject of [...toolRunner.matchAll(/"(\$KV\.[^".]+|\$O\.[^".]+)\./g)].map((match) => match[1])) {
      expect(["$KV.file_index", "$KV.file_revisions", "$KV.tool_calls", "$O.file_contents", "$O.file_uploads", "$KV.repositories", "$KV.repository_credentials", "$O.repository_packs"]).toContain(subject);
    }
    // and it cannot publish what the other services do: no run events, no tool calls, no registry, no session or project requests
    const deny = /deny: \[([^\]]*)\]/.exec(toolRunner)?.[1] ?? "";
    for (const subject of ["tool.>", "agent.>", "registry.>", "session.>", "project.>"]) expect(deny).toContain(`"${subject}"`);
    expect(toolRunner).not.toMatch(/"(RUN_REQUESTS|RUN_EVENTS|KV_sessions|KV_projects|KV_turn_slots|KV_spending)/);
  });

  it("case 205: gives the personal tokens and the AUDIT stream to the gateway alone; the tool-runner only publishes an agent's file_written (docs/audit.md)", () => {
    for (const user of ["registry", "tool-runner", "orchestrator"] as const) {
      expect(userBlock(user), user).not.toMatch(/personal_tokens|\.AUDIT\b/);
    }
    const toolRunner = userBlock("tool-runner");
    expect([...toolRunner.matchAll(/"(audit\.[^"]*)"/g)].map((match) => match[1])).toEqual(["audit.*.*.file_written"]);
    const gateway = userBlock("gateway");
    expect(gateway).toContain('"$KV.personal_tokens.>"');
    expect(gateway).toContain('"audit.>"');
    // the gateway reads and deletes only the consumers it makes on AUDIT; it never deletes or purges the stream
    expect(gateway).not.toMatch(/STREAM\.(DELETE|PURGE)\.(AUDIT|KV_personal_tokens)/);
  });

  it("case 94: gives a repository's credential, refs and packs to the tool-runner alone (docs/repositories.md)", () => {
    for (const user of ["registry", "gateway"] as const) expect(userBlock(user), user).not.toMatch(/repositor(y|ies)_|KV_repositories|\$KV\.repositories/);
    // the orchestrator reads whether a project has a repository (docs/commands.md "Offered to the model"): the
    // bucket's info and a direct get of its `repo.<project>` records, nothing that holds refs, packs or a credential
    const orchestrator = [...userBlock("orchestrator").matchAll(/"([^"\s]*repositor[^"\s]*)"/g)].map((match) => match[1]);
    expect(orchestrator).toEqual(["$JS.API.STREAM.INFO.KV_repositories", "$JS.API.DIRECT.GET.KV_repositories.$KV.repositories.repo.*"]);
    expect(userBlock("tool-runner")).toContain('"$KV.repository_credentials.>"');
    expect(userBlock("gateway")).toContain('"project.repository.get"');
  });

  it("case 321: lets the gateway alone ask a tool-runner to push a repository to its remote, never the orchestrator (docs/repositories.md)", () => {
    expect(userBlock("gateway")).toContain('"project.repository.push"');
    for (const user of ["registry", "tool-runner", "orchestrator"] as const) expect(userBlock(user), user).not.toMatch(/"project\.repository\.(push|\*|>)"(?! q)/);
  });

  it("gives the sign_ins bucket to the gateway alone: made at start, put, read by direct get, deleted at sign-out, never the stream purged (docs/sign-in.md)", () => {
    for (const user of ["registry", "tool-runner", "orchestrator"] as const) expect(userBlock(user), user).not.toMatch(/sign_ins/);
    const gateway = userBlock("gateway");
    const signIns = [...gateway.matchAll(/"([^"]*sign_ins[^"]*)"/g)].map((match) => match[1]);
    expect(signIns.sort()).toEqual(["$JS.API.DIRECT.GET.KV_sign_ins.>", "$JS.API.STREAM.CREATE.KV_sign_ins", "$JS.API.STREAM.INFO.KV_sign_ins", "$KV.sign_ins.>"]);
  });

  it("lets the gateway write only the uploads store, and read but never write file contents (docs/uploads.md)", () => {
    const gateway = userBlock("gateway");
    const objects = [...gateway.matchAll(/"(\$O\.[^"]+)"/g)].map((match) => match[1]);
    expect(objects).toEqual(["$O.file_uploads.>"]);
    const contents = [...gateway.matchAll(/"(\$JS\.API\.[^"]*OBJ_file_contents[^"]*)"/g)].map((match) => match[1] ?? "");
    expect(contents.length).toBeGreaterThan(0);
    for (const subject of contents) expect(subject, subject).toMatch(/^\$JS\.API\.(STREAM\.INFO|DIRECT\.GET|STREAM\.MSG\.GET)\./);
    expect(gateway).not.toMatch(/"\$KV\.file_index|"\$JS\.API\.[A-Z.]*KV_file_index/);
  });

  it("keeps each service's replies on its own inbox prefix", () => {
    for (const user of ["orchestrator", "gateway"] as const) {
      expect(userBlock(user)).toContain(`"_INBOX_${user}.>"`);
      expect(userBlock(user)).not.toMatch(/"_INBOX\.>"|"_INBOX_(?!gateway|orchestrator)/);
    }
  });

  it("lets a tool-runner answer later than the longest tool timeout the orchestrator accepts", () => {
    const expires = /allow_responses: \{ max: 1, expires: "(\w+)" \}/.exec(userBlock("tool-runner"))?.[1];
    const expiresMs = durationMs(expires ?? "0s");
    const timeout = orchestratorEnvSchema.shape.TOOL_TIMEOUT_MS;
    expect(timeout.safeParse(String(expiresMs)).success, "a tool timeout as long as the expiry is refused").toBe(false);
    expect(timeout.safeParse(String(expiresMs - 60_000)).success).toBe(true);
    // a command's or a script's wait is its own limit plus TOOL_TIMEOUT_MS (docs/commands.md "How long the orchestrator waits")
    for (const name of ["COMMAND_TIMEOUT_MAX_MS", "SCRIPT_TIMEOUT_MS"]) {
      const env = (limitMs: number) => ({ [name]: String(limitMs), TOOL_TIMEOUT_MS: String(expiresMs - 540_000) });
      expect(parseEnv(orchestratorEnvSchema, env(540_000)).ok, name).toBe(true);
      expect(parseEnv(orchestratorEnvSchema, env(540_001)).ok, name).toBe(false);
    }
  });

  it.skipIf(!findNatsServerBinary())("is a valid nats-server config", () => {
    const check = spawnSync(findNatsServerBinary() as string, ["-c", natsConfigFile, "-t"], {
      env: { ...process.env, ...serverPasswordEnv(generatePasswords()) },
      encoding: "utf8",
    });
    expect(`${check.stdout}${check.stderr}`).toContain("is valid");
    expect(check.status).toBe(0);
  });
});

describe("Dockerfile", () => {
  const stages = dockerfile.split(/^FROM /m).slice(1);
  const final = stages.at(-1) ?? "";

  it("builds in a separate stage with npm ci and tsc -b", () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(stages[0]).toMatch(/RUN npm ci\b/);
    expect(stages[0]).toMatch(/tsc -b/);
  });

  it("runs as a non-root user, with a health check, exec'ing the service named by SERVICE", () => {
    const user = /^USER (\S+)$/m.exec(final)?.[1];
    expect(user).toBeDefined();
    expect(["root", "0"]).not.toContain(user);
    expect(final).toMatch(/^HEALTHCHECK /m);
    expect(final).toContain('CMD ["sh", "-c", "exec node services/$SERVICE/dist/main.js"]');
  });

  it("runs a supported Node.js LTS line (24), which package.json's engines admit and CI tests (README \"Run it, test it\")", () => {
    const majors = stages.map((stage) => Number(/^node:(\d+)-/.exec(stage)?.[1]));
    expect(majors).toEqual([24, 24]);
    const engines = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { engines: { node: string } }).engines.node;
    expect(engines.split("||").map((range) => range.trim())).toContain(">=24.0.0");
    expect(readFileSync(join(repoRoot, ".ci/run"), "utf8")).toContain("npm install --prefix \"$node24\" --no-audit --no-fund node@24");
  });

  it("keeps secrets and local state out of the build context", () => {
    const ignored = readFileSync(join(repoRoot, ".dockerignore"), "utf8").split("\n");
    for (const entry of [".env", "data", "node_modules", ".git"]) expect(ignored).toContain(entry);
    expect(existsSync(join(repoRoot, "deploy/generate-env.sh"))).toBe(true);
  });
});
