import { asAnswer } from "@agent-orchestrator/shared";
import { authenticationRequired, type GatewayConfig } from "../config.js";

/**
 * The name a member's `user_name` defaults to (docs/settings.md): their user id, when this gateway signs people in.
 * A gateway that signs nobody in serves one local user, who keeps the install's answer.
 */
export function callerName(config: GatewayConfig, user: string): string | undefined {
  return authenticationRequired(config) ? asAnswer(user) : undefined;
}
