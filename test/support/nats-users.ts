/**
 * The NATS users of `deploy/nats/nats-server.conf`: one per service, plus `admin` for operators and for
 * tests that play several roles at once. The config reads each password from an environment variable
 * (`$NATS_TOOL_RUNNER_PASSWORD`, …), so the same file serves `npm start`, the tests and production, each
 * with its own passwords. A service connects as its user through NATS_USER / NATS_PASSWORD.
 */
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";

/** The permission config every launcher uses: `npm start`, the test harness and docker compose. */
export const natsConfigFile = fileURLToPath(new URL("../../deploy/nats/nats-server.conf", import.meta.url));

export const natsServiceUsers = ["registry", "tool-runner", "orchestrator", "gateway"] as const;
export type NatsServiceUser = (typeof natsServiceUsers)[number];
export const natsAdminUser = "admin";
export type NatsUser = NatsServiceUser | typeof natsAdminUser;
export const natsUsers: readonly NatsUser[] = [...natsServiceUsers, natsAdminUser];

/** One password per user. */
export type NatsPasswords = Record<NatsUser, string>;

/** The variable nats-server reads a user's password from: `tool-runner` → `NATS_TOOL_RUNNER_PASSWORD`. */
export function passwordVariable(user: NatsUser): string {
  return `NATS_${user.toUpperCase().replace(/-/g, "_")}_PASSWORD`;
}

/**
 * Fresh random passwords. They start with a letter and hold only letters and digits because nats-server
 * parses a `$VARIABLE`'s value as a config value: `12345` would become a number and `true` a boolean.
 */
export function generatePasswords(): NatsPasswords {
  return Object.fromEntries(natsUsers.map((user) => [user, `n${randomBytes(24).toString("hex")}`])) as NatsPasswords;
}

/** Every user's password variable, for the nats-server process. */
export function serverPasswordEnv(passwords: NatsPasswords): Record<string, string> {
  return Object.fromEntries(natsUsers.map((user) => [passwordVariable(user), passwords[user]]));
}

/** What one service process needs to connect as its own user. */
export function serviceCredentialsEnv(user: NatsUser, passwords: NatsPasswords): { NATS_USER: string; NATS_PASSWORD: string } {
  return { NATS_USER: user, NATS_PASSWORD: passwords[user] };
}
