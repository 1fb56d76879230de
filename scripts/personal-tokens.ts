/**
 * `npm run tokens:list -- [--user NAME] [--not-admitted] [--revoke]`: the personal API tokens of every user
 * (docs/tokens.md "Tokens of users who left"), one JSON object per line, oldest first: id, user, name, how the
 * user signed in to make it (`via`), expiry, and whether the gateway's rules still let its user in (`admitted`).
 * `--user` keeps one user's, `--not-admitted` those of users the rules no longer let in; `--revoke` revokes
 * every token listed, and needs one of the two so that no slip revokes everyone's.
 *
 * It reads the rules from the same variables the gateway does (AUTH_TOKENS, OIDC_ISSUER, OIDC_USER_CLAIM,
 * OIDC_GROUPS_CLAIM, OIDC_ALLOWED_GROUPS, OIDC_ALLOWED_DOMAINS): run it with the gateway's settings. It
 * connects to NATS_URL as NATS_USER with NATS_PASSWORD: an operator's credentials (the `admin` user of
 * deploy/nats/nats-server.conf), since only the gateway's user may read the `personal_tokens` bucket otherwise.
 */
import { parseArgs } from "node:util";
import { connect } from "nats";
import { jetStreamNames } from "@agent-orchestrator/shared/wire";
import { gatewayEnvSchema, PersonalTokens } from "@agent-orchestrator/gateway";

const { values } = parseArgs({
  options: { user: { type: "string" }, "not-admitted": { type: "boolean", default: false }, revoke: { type: "boolean", default: false } },
  strict: true,
});
if (values.revoke && values.user === undefined && !values["not-admitted"]) {
  process.stderr.write("--revoke needs --user NAME or --not-admitted: it revokes the tokens listed\n");
  process.exit(2);
}
const rules = gatewayEnvSchema
  .pick({ AUTH_TOKENS: true, OIDC_ISSUER: true, OIDC_USER_CLAIM: true, OIDC_GROUPS_CLAIM: true, OIDC_ALLOWED_GROUPS: true, OIDC_ALLOWED_DOMAINS: true })
  .safeParse(process.env);
if (!rules.success) {
  process.stderr.write(`The gateway's sign-in settings are not valid: ${rules.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}\n`);
  process.exit(2);
}
const connection = await connect({
  servers: (process.env["NATS_URL"] ?? "nats://127.0.0.1:4222").split(","),
  ...(process.env["NATS_USER"] ? { user: process.env["NATS_USER"], pass: process.env["NATS_PASSWORD"] ?? "" } : {}),
  name: "personal-tokens",
});
try {
  const tokens = await PersonalTokens.open(connection, jetStreamNames().personalTokensBucket, { maxPerUser: 0, replicas: 1, rules: rules.data });
  const listed = (await tokens.all()).filter((token) => (values.user === undefined || token.user === values.user) && (!values["not-admitted"] || !token.admitted));
  for (const token of listed) {
    if (values.revoke) await tokens.revoke(token.user, token.id);
    process.stdout.write(`${JSON.stringify(values.revoke ? { ...token, revoked: true } : token)}\n`);
  }
  process.stderr.write(`${listed.length} personal tokens ${values.revoke ? "revoked" : "listed"}\n`);
} finally {
  await connection.close();
}
