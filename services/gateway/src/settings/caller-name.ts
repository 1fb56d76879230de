import { asAnswer, type SignInVia } from "@agent-orchestrator/shared/wire";
import { displayNameOf } from "../auth/display-name.js";
import { authenticationRequired, type GatewayConfig } from "../config.js";

/**
 * The name a member's `user_name` defaults to (docs/settings.md), when this gateway signs people in: the display
 * name their provider gave at sign-in (auth/display-name.ts), else their user id. A gateway that signs nobody in
 * serves one local user, who keeps the install's answer.
 */
export function callerName(config: GatewayConfig, user: string, signIn: SignInVia | undefined): string | undefined {
  return authenticationRequired(config) ? (displayNameOf(signIn) ?? asAnswer(user)) : undefined;
}
